// find_files: files (and folders) by glob, type and name terms.
#include <algorithm>
#include <cctype>
#include <sstream>

#include <sys/stat.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/file_walk.hpp"
#include "actors/tools/tool_args.hpp"
#include "actors/tools/workspace_guard.hpp"
#include "actors/common/strings.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr int64_t find_default_head = 200;
constexpr int64_t max_offset = 100000;

tool_output find_files(const json& args, const tool_context& ctx) {
  auto path = args.value("path", std::string{});
  auto sort = args.value("sort", std::string{"path"});
  if (sort != "path" && sort != "modified")
    return {"Error: sort must be path or modified (got '" + sort + "')",
            true};
  bool include_dirs = args.value("include_dirs", false);
  auto head = int_arg(args, "head_limit", find_default_head);
  head = head <= 0 ? max_head_limit : std::min(head, max_head_limit);
  auto offset = std::clamp<int64_t>(int_arg(args, "offset", 0), 0, max_offset);
  std::vector<std::string> terms;
  std::istringstream words{ascii_lower(args.value("query", std::string{}))};
  for (std::string w; words >> w;)
    terms.push_back(w);
  file_filter filter;
  std::string error;
  if (!make_file_filter(args.value("glob", std::string{}),
                        args.value("type", std::string{}), filter, error))
    return {error, true};
  auto real = resolve_tool_path(path.empty() ? "." : path, ctx, "Searching");
  if (!real.ok())
    return {real.error, true};
  struct stat st;
  if (::stat(real.path.c_str(), &st) != 0)
    return {"Error: Path not found: " + path, true};
  if (!S_ISDIR(st.st_mode))
    return {"Error: Not a directory: " + path, true};
  std::vector<walk_entry> found;
  auto report = walk_files(real.path, ctx, include_dirs, walk_limit,
                           [&](const walk_entry& e) {
    // Type filters name files; folders pass on glob and terms alone.
    if (e.dir ? !filter.globs.empty()
                  && !file_filter{filter.globs, {}}.accepts(e.rel)
              : !filter.accepts(e.rel))
      return true;
    auto hay = ascii_lower(e.rel);
    for (auto& t : terms)
      if (hay.find(t) == std::string::npos)
        return true;
    found.push_back(e);
    return true;
  });
  if (sort == "modified")
    std::stable_sort(found.begin(), found.end(),
                     [](const walk_entry& a, const walk_entry& b) {
                       return a.mtime > b.mtime;
                     });
  else
    std::sort(found.begin(), found.end(),
              [](const walk_entry& a, const walk_entry& b) {
                return a.rel < b.rel;
              });
  auto total = static_cast<int64_t>(found.size());
  if (total == 0)
    return {"No files found under " + (path.empty() ? "." : path), false};
  if (offset >= total)
    return {"(offset " + std::to_string(offset) + " is past the last of "
              + std::to_string(total) + " entries)",
            false};
  auto end = std::min(total, offset + head);
  std::string out;
  for (auto i = offset; i < end; ++i) {
    auto& e = found[static_cast<size_t>(i)];
    if (!out.empty())
      out.push_back('\n');
    // The walk hands out real paths; symlinked entries show by link name.
    auto shown = display_path(real.path, ctx);
    shown = shown == "." ? e.rel : shown + "/" + e.rel;
    out += e.dir ? shown + "/" : shown;
  }
  if (offset > 0 || end < total)
    out += "\n\n(Showing " + std::to_string(offset + 1) + "-"
           + std::to_string(end) + " of " + std::to_string(total)
           + " entries"
           + (end < total ? "; use offset=" + std::to_string(end)
                              + " for more)"
                          : ")");
  if (report.outside)
    out += "\n(" + std::to_string(report.outside)
           + " symlinks pointing outside the workspace were skipped)";
  if (report.truncated)
    out += "\n(Stopped after " + std::to_string(walk_limit)
           + " entries; search a smaller folder)";
  return {std::move(out), false};
}

} // namespace

void add_find_files(tool_registry& reg) {
  auto text = [](const char* d) {
    return json{{"type", "string"}, {"description", d}};
  };
  json schema = {
    {"type", "object"},
    {"properties",
     {{"path", text("Folder to search (default: the workspace)")},
      {"query", text("Words that must all appear in the path "
                     "(case-insensitive)")},
      {"glob", text("Glob such as \"*.md\" or \"src/**/*.{ts,tsx}\"; "
                    "without '/' it matches file names")},
      {"type", text("File type shorthand: py, js, ts, md, json, yaml, "
                    "toml, txt, sh, c, cpp, go, rs, java, rb, html, css, "
                    "sql, xml")},
      {"include_dirs",
       {{"type", "boolean"}, {"description", "List folders too"}}},
      {"sort",
       {{"type", "string"},
        {"enum", {"path", "modified"}},
        {"description", "path (default) or modified (newest first)"}}},
      {"head_limit",
       {{"type", "integer"},
        {"minimum", 0},
        {"maximum", max_head_limit},
        {"description", "Most entries to return (default 200, 0 = up to "
                        "1000)"}}},
      {"offset",
       {{"type", "integer"},
        {"minimum", 0},
        {"maximum", max_offset},
        {"description", "Entries to skip, for paging"}}}}},
    {"additionalProperties", false},
  };
  reg.add({"find_files",
           "Find files by glob, type or words in their path. Paths come "
           "back relative to the workspace. Noise folders such as .git and "
           "node_modules are skipped.",
           {}, true, false},
          schema,
          find_files);
}

} // namespace nb

// grep: search file contents by regular expression or fixed string.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string_view>

#include <sys/stat.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/file_io.hpp"
#include "actors/tools/file_walk.hpp"
#include "actors/tools/tool_args.hpp"
#include "config/posix_regex.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/untrusted.hpp"
#include "actors/tools/workspace_guard.hpp"
#include "actors/common/strings.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr uint64_t walk_file_cap = 2ull * 1024 * 1024;
constexpr uint64_t explicit_file_cap = 100ull * 1024 * 1024;
constexpr int64_t grep_default_head = 250;
constexpr size_t max_result_chars = 128000;

/// Lines without their "\n" or "\r\n" (grep matches CRLF files as text).
std::vector<std::string_view> split_lines_crlf(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t i = 0;
  while (i < text.size()) {
    auto j = text.find('\n', i);
    if (j == std::string_view::npos)
      j = text.size();
    auto line = text.substr(i, j - i);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.push_back(line);
    i = j + 1;
  }
  return lines;
}

struct matcher {
  std::string needle; // fixed strings (lowercased when icase)
  std::unique_ptr<posix_regex> re;
  bool icase = false;
  bool hit(std::string_view line) const {
    if (re)
      return re->search(line);
    if (!icase)
      return line.find(needle) != std::string_view::npos;
    return ascii_lower(line).find(needle) != std::string::npos;
  }
};

struct search {
  matcher m;
  std::string mode;
  int64_t before = 0, after = 0;
  int64_t offset = 0, head = grep_default_head;
  int64_t total = 0; // units: matching lines (content) or files
  int64_t shown = 0;
  int64_t binary = 0, large = 0;
  std::string out;
  bool clipped = false;

  bool in_window(int64_t index) const {
    return index >= offset && index < offset + head;
  }

  void append(const std::string& text) {
    if (clipped)
      return;
    if (out.size() + text.size() + 1 > max_result_chars) {
      clipped = true;
      return;
    }
    out += text;
    out.push_back('\n');
  }

  void file(const std::string& shown_path, std::string_view data) {
    auto lines = split_lines_crlf(data);
    std::vector<size_t> hits;
    for (size_t i = 0; i < lines.size(); ++i)
      if (m.hit(lines[i]))
        hits.push_back(i);
    if (hits.empty())
      return;
    if (mode != "content") {
      if (in_window(total)) {
        ++shown;
        append(mode == "count"
                 ? shown_path + ": " + std::to_string(hits.size())
                 : shown_path);
      }
      ++total;
      return;
    }
    // Matches in the window, rendered with their context; overlapping
    // context merges, separate groups are split by "--".
    int64_t last = -1;
    for (auto line : hits) {
      if (in_window(total++)) {
        ++shown;
        auto from = static_cast<int64_t>(line) - before;
        from = std::max<int64_t>(from, last + 1);
        auto to = std::min<int64_t>(static_cast<int64_t>(line) + after,
                                    static_cast<int64_t>(lines.size()) - 1);
        if (last >= 0 && from > last + 1)
          append("--");
        for (auto i = from; i <= to; ++i) {
          if (i <= last)
            continue;
          bool is_hit = std::binary_search(hits.begin(), hits.end(),
                                           static_cast<size_t>(i));
          auto sep = is_hit ? ":" : "-";
          append(shown_path + sep + std::to_string(i + 1) + sep
                 + std::string{lines[static_cast<size_t>(i)]});
          last = i;
        }
      }
    }
  }
};

tool_output grep_tool(const json& args, const tool_context& ctx) {
  auto pattern = args.value("pattern", std::string{});
  if (pattern.empty())
    return tool_failure("Error: pattern must not be empty");
  auto path = args.value("path", std::string{});
  search s;
  s.mode = args.value("output_mode", std::string{"files_with_matches"});
  if (s.mode != "content" && s.mode != "files_with_matches"
      && s.mode != "count")
    return tool_failure(
      "Error: output_mode must be content, files_with_matches or "
      "count (got '"
      + s.mode + "')");
  s.before = std::clamp<int64_t>(int_arg(args, "context_before", 0), 0, 20);
  s.after = std::clamp<int64_t>(int_arg(args, "context_after", 0), 0, 20);
  s.offset = std::max<int64_t>(0, int_arg(args, "offset", 0));
  auto head = int_arg(args, "head_limit", -1);
  for (auto legacy : {"max_matches", "max_results"})
    if (head < 0)
      head = int_arg(args, legacy, -1);
  s.head = head < 0    ? grep_default_head
           : head == 0 ? max_head_limit
                       : std::min(head, max_head_limit);
  bool icase = args.value("case_insensitive", false);
  s.m.icase = icase;
  if (args.value("fixed_strings", false)) {
    s.m.needle = icase ? ascii_lower(pattern) : pattern;
  } else {
    s.m.re = std::make_unique<posix_regex>(
      to_posix(pattern), REG_NOSUB | REG_NEWLINE | (icase ? REG_ICASE : 0));
    if (!s.m.re->ok())
      return tool_failure(
        "Error: Invalid regex pattern '" + preview(pattern)
        + "': " + s.m.re->error()
        + ". Set fixed_strings=true to search for the text as "
          "written.");
  }
  file_filter filter;
  std::string error;
  if (!make_file_filter(args.value("glob", std::string{}),
                        args.value("type", std::string{}), filter, error))
    return tool_failure(error);
  auto real = resolve_tool_path(path.empty() ? "." : path, ctx, "Searching");
  if (!real.ok())
    return tool_failure(real.error);
  struct stat st;
  if (::stat(real.path.c_str(), &st) != 0)
    return tool_failure("Error: Path not found: " + path);
  walk_report report;
  if (S_ISREG(st.st_mode)) {
    auto f = read_regular_file(real.path, explicit_file_cap);
    if (f.status == read_status::too_large)
      return tool_failure("Error: " + path
                          + " is too large to search (over 100 "
                            "MB)");
    if (f.status != read_status::ok)
      return tool_failure("Error: Cannot read " + path
                          + (f.reason.empty() ? "" : ": " + f.reason));
    if (looks_binary(f.data))
      return tool_failure("Error: " + path
                          + " is a binary file; grep searches "
                            "text files only");
    s.file(display_path(real.path, ctx), f.data);
  } else if (S_ISDIR(st.st_mode)) {
    // Entries show by the name they were found under, not their target.
    auto root_shown = display_path(real.path, ctx);
    root_shown = root_shown == "." ? "" : root_shown + "/";
    report = walk_files(real.path, ctx, false, walk_limit,
                        [&](const walk_entry& e) {
      if (!filter.accepts(e.rel))
        return true;
      if (e.size > walk_file_cap) {
        ++s.large;
        return true;
      }
      auto f = read_regular_file(e.real, walk_file_cap);
      if (f.status == read_status::too_large) {
        ++s.large;
        return true;
      }
      if (f.status != read_status::ok)
        return true;
      if (looks_binary(f.data)) {
        ++s.binary;
        return true;
      }
      s.file(root_shown + e.rel, f.data);
      return true;
    });
  } else {
    return tool_failure("Error: Searching " + path
                        + " is blocked (not a regular "
                          "file or folder)");
  }
  std::string text = s.out;
  if (s.total == 0)
    text = "No matches found for pattern '" + preview(pattern) + "' in "
           + (path.empty() ? "." : path) + "\n";
  else if (s.shown == 0)
    text = "(offset " + std::to_string(s.offset) + " is past the last of "
           + std::to_string(s.total) + " results)\n";
  auto unit = s.mode == "content" ? "matching lines" : "files";
  if (s.clipped)
    text += "\n(output cut at " + std::to_string(max_result_chars)
            + " characters; narrow the search or page with offset/"
              "head_limit)";
  if (s.shown > 0 && (s.offset > 0 || s.offset + s.shown < s.total))
    text += "\n(Showing " + std::to_string(s.offset + 1) + "-"
            + std::to_string(s.offset + s.shown) + " of "
            + std::to_string(s.total) + " " + unit
            + (s.offset + s.shown < s.total
                 ? "; use offset=" + std::to_string(s.offset + s.shown)
                     + " for more)"
                 : ")");
  std::vector<std::string> skipped;
  if (s.binary)
    skipped.push_back(std::to_string(s.binary) + " binary");
  if (s.large)
    skipped.push_back(std::to_string(s.large) + " over 2 MB");
  if (report.outside)
    skipped.push_back(std::to_string(report.outside)
                      + " symlinked outside the workspace");
  if (report.not_regular)
    skipped.push_back(std::to_string(report.not_regular)
                      + " not regular files");
  if (!skipped.empty()) {
    text += "\n(Skipped files: ";
    for (size_t i = 0; i < skipped.size(); ++i)
      text += (i ? ", " : "") + skipped[i];
    text += ")";
  }
  if (report.truncated)
    text += "\n(Stopped after " + std::to_string(walk_limit)
            + " entries; search a smaller folder)";
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  // Matched lines are file content, written by anyone.
  if (s.mode == "content" && s.shown > 0)
    text = frame_untrusted("grep", text);
  return {std::move(text), false};
}

} // namespace

void add_grep(tool_registry& reg) {
  auto integer = [](const char* text, int64_t min, int64_t max) {
    return json{{"type", "integer"}, {"description", text},
                {"minimum", min}, {"maximum", max}};
  };
  auto text = [](const char* d) {
    return json{{"type", "string"}, {"description", d}};
  };
  auto flag = [](const char* d) {
    return json{{"type", "boolean"}, {"description", d}};
  };
  json schema = {
    {"type", "object"},
    {"properties",
     {{"pattern",
       {{"type", "string"},
        {"minLength", 1},
        {"description", "Regular expression (or text with fixed_strings)"}}},
      {"path", text("File or folder to search (default: the workspace)")},
      {"glob", text("Only files matching this glob, e.g. \"*.py\" or "
                    "\"src/**/*.{ts,tsx}\"")},
      {"type", text("Only files of this type: py, js, ts, md, json, yaml, "
                    "toml, txt, sh, c, cpp, go, rs, java, rb, html, css, "
                    "sql, xml")},
      {"case_insensitive", flag("Ignore case (default false)")},
      {"fixed_strings", flag("Treat pattern as plain text (default false)")},
      {"output_mode",
       {{"type", "string"},
        {"enum", {"content", "files_with_matches", "count"}},
        {"description", "content: matching lines as path:line:text; "
                        "files_with_matches (default): file paths; count: "
                        "matches per file"}}},
      {"context_before", integer("Lines of context before each match "
                                 "(content mode)",
                                 0, 20)},
      {"context_after", integer("Lines of context after each match "
                                "(content mode)",
                                0, 20)},
      {"head_limit", integer("Most results to return (default 250, 0 = "
                             "all up to 1000)",
                             0, max_head_limit)},
      {"offset", integer("Results to skip, for paging (default 0)", 0, 100000)},
      {"max_matches",
       integer("Same as head_limit (legacy)", 0, max_head_limit)},
      {"max_results",
       integer("Same as head_limit (legacy)", 0, max_head_limit)}}},
    {"required", {"pattern"}},
    {"additionalProperties", false},
  };
  reg.add({"grep",
           "Search file contents with a regular expression (POSIX extended "
           "syntax, \\d \\s \\w understood) or a fixed string. Returns the "
           "matching files by default; output_mode=content gives "
           "path:line:text with optional context. Binary files and files "
           "over 2 MB are skipped in folder searches.",
           {}, true, false},
          schema,
          grep_tool);
}

} // namespace nb

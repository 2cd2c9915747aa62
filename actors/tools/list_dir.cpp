// list_dir: directory entries, optionally recursive.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/file_walk.hpp"
#include "actors/tools/sandbox/config_workspace.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int64_t default_max = 200;

const std::set<std::string>& ignored() {
  static const std::set<std::string> names{
    ".git",        "node_modules",  "__pycache__", ".venv",      "venv",
    "dist",        "build",         ".tox",        ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".coverage",   "htmlcov"};
  return names;
}

struct child {
  std::string name;
  bool dir = false;      ///< a directory, or a symlink to one
  bool real_dir = false; ///< a directory that is not a symlink
};

std::vector<child> children(const fs::path& dir) {
  std::vector<child> out;
  std::error_code ec;
  for (fs::directory_iterator it{dir, ec}, end; !ec && it != end;
       it.increment(ec)) {
    child c;
    c.name = it->path().filename().string();
    if (ignored().count(c.name))
      continue;
    std::error_code e2;
    c.dir = it->is_directory(e2);
    c.real_dir = c.dir && !it->is_symlink(e2);
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(),
            [](const child& a, const child& b) { return a.name < b.name; });
  return out;
}

struct walk {
  int64_t cap = default_max;
  int64_t total = 0;
  std::vector<std::string> items;
  std::vector<std::string> hidden; ///< listed, not entered (gateway_state_in)

  void visit(const fs::path& dir, const std::string& prefix) {
    for (auto& c : children(dir)) {
      if (total >= walk_limit)
        return;
      ++total;
      auto rel = prefix + c.name;
      if (static_cast<int64_t>(items.size()) < cap)
        items.push_back(c.dir ? rel + "/" : rel);
      // Symlinked directories are listed but never entered: they may
      // point out of the workspace. The gateway's own (a workspace that is
      // the config dir) show as the sandbox shows them: empty.
      if (c.real_dir && !within_any((dir / c.name).string(), hidden))
        visit(dir / c.name, rel + "/");
    }
  }
};

tool_output list_dir(const json& args, const tool_context& ctx) {
  auto path = args.value("path", std::string{});
  bool recursive = args.value("recursive", false);
  auto cap = args.value("max_entries", default_max);
  if (cap < 1)
    cap = default_max;
  auto real = resolve_tool_path(path.empty() ? "." : path, ctx, "Listing");
  if (!real.ok())
    return {real.error, true};
  std::error_code ec;
  auto st = fs::status(real.path, ec);
  if (ec || !fs::exists(st))
    return {"Error: Directory not found: " + path, true};
  if (!fs::is_directory(st))
    return {"Error: Not a directory: " + path, true};
  walk w;
  w.cap = cap;
  if (recursive && ctx.restrict_to_workspace) {
    auto ws = resolve_real_path(ctx.workspace, "/");
    if (ws.ok())
      w.hidden = gateway_state_in(ws.path, ctx.config_dir, ctx.config_file);
  }
  if (recursive) {
    w.visit(real.path, "");
  } else {
    for (auto& c : children(real.path)) {
      ++w.total;
      if (static_cast<int64_t>(w.items.size()) < cap)
        w.items.push_back((c.dir ? "\xF0\x9F\x93\x81 " : "\xF0\x9F\x93\x84 ")
                          + c.name);
    }
  }
  if (w.total == 0)
    return {"Directory " + path + " is empty", false};
  std::string out;
  for (auto& item : w.items) {
    if (!out.empty())
      out.push_back('\n');
    out += item;
  }
  if (w.total >= walk_limit)
    out += "\n\n(truncated, showing first " + std::to_string(w.items.size())
           + " of more than " + std::to_string(walk_limit) + " entries)";
  else if (w.total > cap)
    out += "\n\n(truncated, showing first " + std::to_string(cap) + " of "
           + std::to_string(w.total) + " entries)";
  return {std::move(out), false};
}

} // namespace

void add_list_dir(tool_registry& reg) {
  json schema = {
    {"type", "object"},
    {"properties",
     {{"path",
       {{"type", "string"}, {"description", "The directory to list."}}},
      {"recursive",
       {{"type", "boolean"},
        {"description", "Include everything below it too (default false)"}}},
      {"max_entries",
       {{"type", "integer"},
        {"description", "Most entries to return (default 200)"},
        {"minimum", 1}}}}},
    {"required", {"path"}},
    {"additionalProperties", false},
  };
  reg.add({"list_dir",
           "List what a directory contains; recursive=true walks the whole "
           "tree below it. Noise such as .git, node_modules and __pycache__ "
           "is skipped.",
           {}, true, false},
          schema,
          list_dir);
}

} // namespace nb

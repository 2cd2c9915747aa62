#include "actors/tools/file_walk.hpp"

#include <algorithm>
#include <set>

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include "actors/tools/sandbox/config_workspace.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

// Type shorthands, as ripgrep names them.
const std::vector<std::pair<std::string, std::vector<std::string>>>&
type_table() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>>
    t{{"py", {"py", "pyi"}},
      {"js", {"js", "jsx", "mjs", "cjs"}},
      {"ts", {"ts", "tsx", "mts", "cts"}},
      {"md", {"md", "markdown"}},
      {"json", {"json", "jsonl"}},
      {"yaml", {"yaml", "yml"}},
      {"toml", {"toml"}},
      {"txt", {"txt"}},
      {"sh", {"sh", "bash", "zsh"}},
      {"c", {"c", "h"}},
      {"cpp", {"cpp", "cc", "cxx", "hpp", "hh", "hxx", "h"}},
      {"go", {"go"}},
      {"rs", {"rs"}},
      {"java", {"java"}},
      {"rb", {"rb"}},
      {"html", {"html", "htm"}},
      {"css", {"css", "scss"}},
      {"sql", {"sql"}},
      {"xml", {"xml"}}};
  return t;
}

std::string base_name(const std::string& rel) {
  auto slash = rel.rfind('/');
  return slash == std::string::npos ? rel : rel.substr(slash + 1);
}

// Memoised on (glob index, text index): every state is decided once, so
// hostile patterns such as "*a*a*a*...b" stay polynomial.
struct glob_matcher {
  const std::string& g;
  const std::string& t;
  std::vector<signed char> memo; // -1 unknown, 0 no, 1 yes

  bool at(size_t gi, size_t ti) {
    auto& m = memo[gi * (t.size() + 1) + ti];
    if (m < 0)
      m = compute(gi, ti) ? 1 : 0;
    return m == 1;
  }

  bool compute(size_t gi, size_t ti) {
    if (gi == g.size())
      return ti == t.size();
    if (g.compare(gi, 2, "**") == 0) {
      size_t next = gi + 2;
      // "**/" may match no folder at all.
      if (next < g.size() && g[next] == '/' && at(next + 1, ti))
        return true;
      for (size_t k = ti; k <= t.size(); ++k)
        if (at(next, k))
          return true;
      return false;
    }
    char c = g[gi];
    if (c == '*') {
      for (size_t k = ti; k <= t.size(); ++k) {
        if (at(gi + 1, k))
          return true;
        if (k < t.size() && t[k] == '/')
          break;
      }
      return false;
    }
    if (ti >= t.size())
      return false;
    if (c == '?')
      return t[ti] != '/' && at(gi + 1, ti + 1);
    if (c == '[') {
      auto close = g.find(']', gi + 2);
      if (close == std::string::npos)
        return t[ti] == '[' && at(gi + 1, ti + 1);
      auto cls = g.substr(gi, close - gi + 1);
      char one[2] = {t[ti], 0};
      return t[ti] != '/' && ::fnmatch(cls.c_str(), one, 0) == 0
             && at(close + 1, ti + 1);
    }
    return c == t[ti] && at(gi + 1, ti + 1);
  }
};

struct walker {
  const tool_context& ctx;
  std::string ws_root;
  std::vector<std::string> hidden; ///< the gateway's state (gateway_state_in)
  bool dirs = false;
  int64_t limit = 0;
  int64_t seen = 0;
  bool stop = false;
  walk_report report;
  const std::function<bool(const walk_entry&)>& visit;

  void give(walk_entry e) {
    if (!visit(e))
      stop = true;
  }

  void folder(const std::string& dir, const std::string& prefix) {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir.c_str())) {
      while (auto* ent = ::readdir(d)) {
        std::string n = ent->d_name;
        if (n != "." && n != "..")
          names.push_back(std::move(n));
      }
      ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    for (auto& name : names) {
      if (stop)
        return;
      if (++seen > limit) {
        report.truncated = true;
        stop = true;
        return;
      }
      auto path = dir == "/" ? "/" + name : dir + "/" + name;
      auto rel = prefix + name;
      struct stat st;
      if (::lstat(path.c_str(), &st) != 0)
        continue;
      if (S_ISLNK(st.st_mode)) {
        auto real = resolve_real_path(path, "/");
        if (!real.ok())
          continue;
        if (ctx.restrict_to_workspace && !path_within(real.path, ws_root)) {
          ++report.outside;
          continue;
        }
        if (within_any(real.path, hidden))
          continue;
        if (is_device_path(real.path) || ::stat(real.path.c_str(), &st) != 0)
          continue;
        // Symlinked folders are never entered; listed when asked.
        if (S_ISDIR(st.st_mode)) {
          if (dirs)
            give({real.path, rel, true, st.st_mtime, 0});
          continue;
        }
        if (!S_ISREG(st.st_mode)) {
          ++report.not_regular;
          continue;
        }
        give({real.path, rel, false, st.st_mtime,
              static_cast<uint64_t>(st.st_size)});
        continue;
      }
      if (!hidden.empty() && within_any(path, hidden))
        continue; // not the agent's: as the sandbox shows it, empty
      if (S_ISDIR(st.st_mode)) {
        if (is_noise_dir(name))
          continue;
        if (dirs)
          give({path, rel, true, st.st_mtime, 0});
        if (!stop)
          folder(path, rel + "/");
      } else if (S_ISREG(st.st_mode)) {
        give({path, rel, false, st.st_mtime,
              static_cast<uint64_t>(st.st_size)});
      } else {
        ++report.not_regular;
      }
    }
  }
};

} // namespace

bool is_noise_dir(const std::string& name) {
  static const std::set<std::string> names{
    ".git",          "node_modules", "__pycache__", ".venv",     "venv",
    "dist",          "build",        ".tox",        ".mypy_cache",
    ".pytest_cache", ".ruff_cache",  ".coverage",   "htmlcov"};
  return names.count(name) > 0;
}

std::vector<std::string> expand_braces(const std::string& glob) {
  auto open = glob.find('{');
  if (open == std::string::npos)
    return {glob};
  auto close = glob.find('}', open);
  if (close == std::string::npos)
    return {glob};
  std::vector<std::string> out;
  auto body = glob.substr(open + 1, close - open - 1);
  size_t i = 0;
  while (true) {
    auto comma = body.find(',', i);
    auto alt = body.substr(i, comma == std::string::npos ? std::string::npos
                                                         : comma - i);
    for (auto& rest : expand_braces(glob.substr(close + 1)))
      out.push_back(glob.substr(0, open) + alt + rest);
    if (comma == std::string::npos || out.size() > 256)
      break;
    i = comma + 1;
  }
  return out;
}

bool glob_match(const std::string& glob, const std::string& text) {
  // Paths are bounded (4 KiB), globs far shorter; larger input fails.
  if (glob.size() > 1024 || text.size() > 4096)
    return false;
  glob_matcher m{glob, text, {}};
  m.memo.assign((glob.size() + 1) * (text.size() + 1), -1);
  return m.at(0, 0);
}

bool file_filter::accepts(const std::string& rel) const {
  auto name = base_name(rel);
  if (!exts.empty()) {
    auto dot = name.rfind('.');
    auto ext = dot == std::string::npos ? std::string{} : name.substr(dot + 1);
    if (std::find(exts.begin(), exts.end(), ext) == exts.end())
      return false;
  }
  if (globs.empty())
    return true;
  for (auto& g : globs) {
    bool whole = g.find('/') != std::string::npos;
    if (glob_match(g, whole ? rel : name))
      return true;
    // "**/x" written for a whole path also matches a top-level "x".
    if (whole && g.rfind("**/", 0) == 0 && glob_match(g.substr(3), rel))
      return true;
  }
  return false;
}

bool make_file_filter(const std::string& glob, const std::string& type,
                      file_filter& out, std::string& error) {
  out = {};
  if (!glob.empty()) {
    auto g = glob.rfind("./", 0) == 0 ? glob.substr(2) : glob;
    out.globs = expand_braces(g);
  }
  if (!type.empty()) {
    std::string known;
    for (auto& [name, exts] : type_table()) {
      if (name == type)
        out.exts = exts;
      known += (known.empty() ? "" : ", ") + name;
    }
    if (out.exts.empty()) {
      error = "Error: Unknown type '" + type + "'. Known types: " + known
              + " (or use glob, e.g. \"*.ext\")";
      return false;
    }
  }
  return true;
}

walk_report walk_files(const std::string& root, const tool_context& ctx,
                       bool dirs, int64_t limit,
                       const std::function<bool(const walk_entry&)>& visit) {
  walker w{ctx, {}, {}, dirs, limit, 0, false, {}, visit};
  auto ws = resolve_real_path(ctx.workspace, "/");
  w.ws_root = ws.ok() ? ws.path : ctx.workspace;
  if (ctx.restrict_to_workspace)
    w.hidden = gateway_state_in(w.ws_root, ctx.config_dir, ctx.config_file);
  w.folder(root, "");
  return w.report;
}

std::string display_path(const std::string& real, const tool_context& ctx) {
  auto ws = resolve_real_path(ctx.workspace, "/");
  auto root = ws.ok() ? ws.path : ctx.workspace;
  if (real == root)
    return ".";
  if (path_within(real, root))
    return real.substr(root.size() + (root == "/" ? 0 : 1));
  return real;
}

} // namespace nb

// Tools: walking a directory tree for grep and find_files. Noise folders
// are skipped, symlinked folders are never entered, and every file handed
// out has passed the workspace boundary (a symlinked file that points out
// is skipped, not read).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actors/tools/registry.hpp"

namespace nb {

/// Every walk (grep, list_dir) stops counting here, so a huge tree cannot
/// stall a tool.
inline constexpr int64_t walk_limit = 100000;

/// Folder names no search walks into (as list_dir).
bool is_noise_dir(const std::string& name);

/// Expands "{a,b}" groups: "*.{ts,tsx}" -> "*.ts", "*.tsx".
std::vector<std::string> expand_braces(const std::string& glob);

/// Shell-style match of `text` against one brace-free `glob`: `*` and `?`
/// stop at '/', `**` crosses folders ("**/" also matches nothing), `[...]`
/// classes as fnmatch.
bool glob_match(const std::string& glob, const std::string& text);

/// A file filter built from a glob and a type shorthand ("py", "ts", ...).
struct file_filter {
  std::vector<std::string> globs; ///< any may match (brace-expanded)
  std::vector<std::string> exts;  ///< from `type`; any may match
  /// Whether `rel` (path below the search root) passes. A glob without
  /// '/' is matched against the file name only.
  bool accepts(const std::string& rel) const;
};

/// Builds the filter; an unknown type is an error naming the known ones.
bool make_file_filter(const std::string& glob, const std::string& type,
                      file_filter& out, std::string& error);

/// One entry the walk found.
struct walk_entry {
  std::string real;   ///< absolute real path
  std::string rel;    ///< path below the search root
  bool dir = false;
  int64_t mtime = 0;  ///< seconds
  uint64_t size = 0;
};

/// What a walk saw besides the entries.
struct walk_report {
  int64_t outside = 0;     ///< symlinks pointing out of the workspace
  int64_t not_regular = 0; ///< FIFOs, sockets, devices
  bool truncated = false;  ///< stopped at the entry limit
};

/// Walks `root` (a real, checked directory), calling `visit` for each
/// regular file (and each folder when `dirs`), sorted by name per folder.
/// `visit` returns false to stop. At most `limit` entries are examined.
walk_report walk_files(const std::string& root, const tool_context& ctx,
                       bool dirs, int64_t limit,
                       const std::function<bool(const walk_entry&)>& visit);

/// `real` shown to the model: workspace-relative when inside it.
std::string display_path(const std::string& real, const tool_context& ctx);

} // namespace nb

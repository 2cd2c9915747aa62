// The chat's input history on disk, in the format of prompt_toolkit's
// FileHistory (the original's): each entry is a "# <time>" line followed by
// its lines, each behind a '+'. Loaded at start, appended one entry at a
// time, bounded.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nb {

class history_file {
public:
  /// `path` is created (with its folder) on the first append; at most
  /// `bound` entries are kept.
  explicit history_file(std::string path, size_t bound = 1000);

  /// The entries, oldest first. A file holding more than the bound is
  /// rewritten with the newest `bound` (atomically). Never throws; a file
  /// that cannot be read gives no entries.
  std::vector<std::string> load();

  /// Adds one entry; "" or the error ("cannot write ...").
  std::string append(const std::string& entry);

  const std::string& path() const { return path_; }

private:
  std::string path_;
  size_t bound_;
};

} // namespace nb

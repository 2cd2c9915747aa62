// Tools: careful file reads and atomic writes for the file tools.
#pragma once

#include <cstdint>
#include <string>

namespace nb {

/// How read_regular_file ended.
enum class read_status { ok, missing, not_regular, too_large, failed };

/// What read_regular_file produced.
struct file_bytes {
  read_status status = read_status::failed;
  std::string data;
  uint64_t size = 0;   ///< the file's size, also when too large
  std::string reason;  ///< strerror text when failed
};

/// Reads the regular file `path` whole when it holds at most `max_bytes`.
/// Opens without blocking and checks the opened descriptor, so a FIFO or
/// device swapped in after a stat is never read. The size limit is checked
/// before any byte is read.
file_bytes read_regular_file(const std::string& path, uint64_t max_bytes);

/// Writes `data` to `path` atomically: a temporary file beside it, fsync,
/// rename. Creates missing parent directories and keeps the permission bits
/// of a file it replaces. Returns "" or an error reason.
std::string write_file_atomic(const std::string& path, const std::string& data);

} // namespace nb

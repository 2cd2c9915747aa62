// Small POSIX file helpers for the session store: errors as values, EINTR
// retried, short writes completed. Internal to actors/store.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <caf/error.hpp>
#include <caf/expected.hpp>

namespace nb::store_io {

/// An nb::errc::store_failed error whose context reads
/// "<what> <path>: <strerror(err)>".
caf::error sys_error(std::string_view what, const std::string& path, int err);

/// An nb::errc::store_failed error carrying `text` as its context.
caf::error store_error(std::string text);

/// Writes all of `data` to `fd` (retries EINTR and short writes).
/// Returns 0 or the errno of the failed write.
int write_all(int fd, std::string_view data);

/// Reads the whole file; ENOENT comes back as an error too (check errno_out).
/// `lines` > 0: stops once that many lines are in (more may follow them).
caf::expected<std::string> read_file(const std::string& path,
                                     int* errno_out = nullptr,
                                     size_t lines = 0);

/// fsyncs a directory so that a create or rename in it survives power loss.
caf::error fsync_dir(const std::string& dir);

/// Creates `dir` and its missing parents with mode 0700 (existing ones are
/// left as they are). Fails when a component exists but is not a directory.
caf::error make_dirs(const std::string& dir);

/// `bytes` random bytes as lower-case hex (getrandom, never a fixed seed).
std::string random_hex(size_t bytes);

/// The directory part of `path` ("." when it has none).
std::string parent_dir(const std::string& path);

} // namespace nb::store_io

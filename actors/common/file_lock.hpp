// An advisory lock on a file (flock), held for the object's lifetime. The
// original nanobot takes the same kind of lock (Python's filelock uses flock
// on POSIX), so both programs exclude each other on one home when they lock
// the same file names. Blocking: call from a detached actor or a worker.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace nb {

enum class lock_mode {
  exclusive, ///< one holder at a time (what the original always takes)
  shared,    ///< many shared holders, but never alongside an exclusive one
};

class file_lock {
public:
  file_lock() = default;

  /// Opens `path` (created with mode 0600 when missing, never truncated or
  /// removed) and waits for the lock: forever, or at most `timeout`.
  explicit file_lock(const std::string& path,
                     lock_mode mode = lock_mode::exclusive,
                     std::optional<std::chrono::milliseconds> timeout = {});

  file_lock(file_lock&& other) noexcept;
  file_lock& operator=(file_lock&& other) noexcept;
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock();

  bool held() const {
    return fd_ >= 0;
  }

  /// Why the lock is not held ("" when it is).
  const std::string& error() const {
    return error_;
  }

  /// Lets go early (closing the file releases the flock).
  void release();

private:
  int fd_ = -1;
  std::string error_;
};

} // namespace nb

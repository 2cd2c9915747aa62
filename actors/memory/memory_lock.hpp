// The lock every writer of the workspace's memory/ files takes: archive
// workers of different sessions (and a second nanobot process on the same
// workspace) must not allocate the same history cursor or lose each
// other's MEMORY.md additions.
#pragma once

#include <string>

namespace nb {

/// An exclusive flock on <workspace>/memory/.lock, held for the object's
/// lifetime. Blocking: only for worker threads, never a CAF scheduler
/// thread. When the lock file cannot be opened, `held()` is false and the
/// writer goes on unlocked (a read-only memory/ fails at the write anyway).
class memory_lock {
public:
  explicit memory_lock(const std::string& workspace);
  memory_lock(const memory_lock&) = delete;
  memory_lock& operator=(const memory_lock&) = delete;
  ~memory_lock();

  bool held() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

} // namespace nb

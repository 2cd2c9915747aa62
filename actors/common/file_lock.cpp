#include "actors/common/file_lock.hpp"

#include <cerrno>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace nb {

file_lock::file_lock(const std::string& path, lock_mode mode,
                     std::optional<std::chrono::milliseconds> timeout) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                  0600);
  if (fd < 0) {
    error_ = "cannot open the lock file " + path + ": " + std::strerror(errno);
    return;
  }
  int op = mode == lock_mode::shared ? LOCK_SH : LOCK_EX;
  if (!timeout) {
    while (::flock(fd, op) != 0) {
      if (errno != EINTR) {
        error_ = "cannot lock " + path + ": " + std::strerror(errno);
        ::close(fd);
        return;
      }
    }
    fd_ = fd;
    return;
  }
  // Polls like Python's filelock does, so a stuck holder costs a clear
  // error instead of a hang.
  auto deadline = std::chrono::steady_clock::now() + *timeout;
  while (::flock(fd, op | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      error_ = "cannot lock " + path + ": " + std::strerror(errno);
      ::close(fd);
      return;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      error_ = "timed out after " + std::to_string(timeout->count())
               + " ms waiting for the lock on " + path
               + " (another nanobot process holds it)";
      ::close(fd);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  fd_ = fd;
}

file_lock::file_lock(file_lock&& other) noexcept
  : fd_(other.fd_), error_(std::move(other.error_)) {
  other.fd_ = -1;
}

file_lock& file_lock::operator=(file_lock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    error_ = std::move(other.error_);
    other.fd_ = -1;
  }
  return *this;
}

file_lock::~file_lock() {
  release();
}

void file_lock::release() {
  if (fd_ >= 0)
    ::close(fd_); // releases the flock
  fd_ = -1;
}

} // namespace nb

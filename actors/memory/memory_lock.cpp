#include "actors/memory/memory_lock.hpp"

#include <cerrno>
#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace nb {

memory_lock::memory_lock(const std::string& workspace) {
  std::error_code ec;
  std::filesystem::create_directories(workspace + "/memory", ec);
  auto path = workspace + "/memory/.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ >= 0)
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
}

memory_lock::~memory_lock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the lock
}

} // namespace nb

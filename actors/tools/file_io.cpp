#include "actors/tools/file_io.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nb {

namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

// Closes a descriptor when it goes out of scope.
struct fd_guard {
  int fd = -1;
  ~fd_guard() {
    if (fd >= 0)
      ::close(fd);
  }
};

std::string random_suffix() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  static const char* hex = "0123456789abcdef";
  std::string s;
  auto v = gen();
  for (int i = 0; i < 12; ++i, v >>= 4)
    s.push_back(hex[v & 0xF]);
  return s;
}

} // namespace

file_bytes read_regular_file(const std::string& path, uint64_t max_bytes) {
  file_bytes out;
  fd_guard f{::open(path.c_str(),
                    O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) {
    out.status = errno == ENOENT || errno == ENOTDIR ? read_status::missing
                                                     : read_status::failed;
    out.reason = errno_text(errno);
    return out;
  }
  struct stat st;
  if (::fstat(f.fd, &st) != 0) {
    out.reason = errno_text(errno);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.status = read_status::not_regular;
    return out;
  }
  out.size = static_cast<uint64_t>(st.st_size);
  if (out.size > max_bytes) {
    out.status = read_status::too_large;
    return out;
  }
  out.data.resize(out.size);
  size_t got = 0;
  while (got < out.data.size()) {
    auto n = ::read(f.fd, out.data.data() + got, out.data.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      out.reason = errno_text(errno);
      out.data.clear();
      return out;
    }
    if (n == 0)
      break; // the file shrank meanwhile
    got += static_cast<size_t>(n);
  }
  out.data.resize(got);
  out.status = read_status::ok;
  return out;
}

std::string write_file_atomic(const std::string& path,
                              const std::string& data) {
  namespace fs = std::filesystem;
  fs::path target{path};
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec)
      return "cannot create " + target.parent_path().string() + ": "
             + ec.message();
  }
  mode_t mode = 0644;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return path + " exists and is not a regular file";
    mode = st.st_mode & 07777;
  }
  std::string tmp_name{"."};
  tmp_name += target.filename().string();
  tmp_name += '.';
  tmp_name += random_suffix();
  tmp_name += ".tmp";
  auto tmp = (target.parent_path() / tmp_name).string();
  fd_guard f{::open(tmp.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600)};
  if (f.fd < 0)
    return "cannot create a temporary file beside " + path + ": "
           + errno_text(errno);
  auto fail = [&](const std::string& what) {
    auto reason = what + ": " + errno_text(errno);
    ::unlink(tmp.c_str());
    return reason;
  };
  size_t put = 0;
  while (put < data.size()) {
    auto n = ::write(f.fd, data.data() + put, data.size() - put);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail("write failed");
    put += static_cast<size_t>(n);
  }
  if (::fchmod(f.fd, mode) != 0)
    return fail("chmod failed");
  if (::fsync(f.fd) != 0)
    return fail("fsync failed");
  ::close(f.fd);
  f.fd = -1;
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("rename failed");
  return {};
}

} // namespace nb

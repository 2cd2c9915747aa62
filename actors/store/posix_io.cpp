#include "actors/store/posix_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <caf/make_message.hpp>

#include "messages/errc.hpp"

namespace nb::store_io {

caf::error sys_error(std::string_view what, const std::string& path,
                     int err) {
  std::string text{what};
  text += ' ';
  text += path;
  text += ": ";
  text += std::strerror(err);
  return store_error(std::move(text));
}

caf::error store_error(std::string text) {
  return caf::make_error(errc::store_failed, std::move(text));
}

int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    auto n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

caf::expected<std::string> read_file(const std::string& path,
                                     int* errno_out, size_t lines) {
  auto fail = [&](const char* what, int err) {
    if (errno_out)
      *errno_out = err;
    return sys_error(what, path, err);
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot open", errno);
  std::string out;
  char buf[65536];
  for (;;) {
    auto n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd);
      return fail("cannot read", err);
    }
    if (n == 0)
      break;
    out.append(buf, static_cast<size_t>(n));
    if (lines > 0) {
      auto seen = std::count(buf, buf + n, '\n');
      if (static_cast<size_t>(seen) >= lines)
        break;
      lines -= static_cast<size_t>(seen);
    }
  }
  ::close(fd);
  if (errno_out)
    *errno_out = 0;
  return out;
}

caf::error fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return sys_error("cannot open directory", dir, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  // Some file systems cannot fsync directories; the data is then as safe
  // as it gets, so that is no failure.
  if (rc != 0 && err != EINVAL && err != EROFS)
    return sys_error("cannot fsync directory", dir, err);
  return caf::none;
}

caf::error make_dirs(const std::string& dir) {
  if (dir.empty())
    return store_error("empty directory path");
  for (size_t pos = 1;; ++pos) {
    pos = dir.find('/', pos);
    auto part = dir.substr(0, pos);
    if (!part.empty() && part.back() != '/'
        && ::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return sys_error("cannot create directory", part, errno);
    if (pos == std::string::npos)
      break;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return sys_error("cannot stat directory", dir, errno);
  if (!S_ISDIR(st.st_mode))
    return sys_error("not a directory:", dir, ENOTDIR);
  return caf::none;
}

std::string random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  size_t got = 0;
  while (got < bytes) {
    auto n = ::getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) // getrandom cannot fail on Linux >= 3.17 with these flags
      std::abort();
    got += static_cast<size_t>(n);
  }
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char c : raw) {
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out;
}

std::string parent_dir(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace nb::store_io

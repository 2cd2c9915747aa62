// Crash-safe file writes (POSIX): write a temp file in the same directory,
// fsync it, move it into place, fsync the directory.
#include "config/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "actors/common/file_text.hpp"

namespace nb {

namespace {

write_result failure(const std::string& what, const std::string& path,
                     int err) {
  return {write_outcome::failed,
          "cannot " + what + " " + path + ": " + std::strerror(err)};
}

std::string parent_of(const std::string& path) {
  auto parent = std::filesystem::path{path}.parent_path().string();
  return parent.empty() ? "." : parent;
}

void sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Writes a fresh temp file next to `path`; returns its name or "" (errno).
std::string write_temp(const std::string& path, std::string_view content,
                       unsigned mode) {
  auto name = std::filesystem::path{path}.filename().string();
  auto tmp = parent_of(path) + "/." + name + ".tmp.XXXXXX";
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0)
    return {};
  bool ok = ::fchmod(fd, mode) == 0; // exact, whatever the umask
  size_t done = 0;
  while (ok && done < content.size()) {
    auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  ok = ok && ::fsync(fd) == 0;
  int saved = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    errno = saved;
    return {};
  }
  return tmp;
}

/// Whether `path` holds exactly `expected` (a missing file holds "").
bool file_holds(const std::string& path, std::string_view expected) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return !ec && expected.empty();
  return read_file_text(path) == expected;
}

/// Both replacements; `expected` null: unconditional.
write_result replace_checked(const std::string& path, std::string_view content,
                             const std::string_view* expected, unsigned mode,
                             existing_mode policy) {
  struct stat st{};
  if (policy == existing_mode::keep && ::stat(path.c_str(), &st) == 0)
    mode = st.st_mode & 07777;
  auto tmp = write_temp(path, content, mode);
  if (tmp.empty())
    return failure("write", path, errno);
  if (expected && !file_holds(path, *expected)) {
    ::unlink(tmp.c_str());
    return {write_outcome::kept, {}};
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return failure("replace", path, err);
  }
  sync_dir(parent_of(path));
  return {write_outcome::written, {}};
}

} // namespace

write_result create_file_atomic(const std::string& path,
                                std::string_view content, unsigned mode) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0)
    return {write_outcome::kept, {}};
  auto tmp = write_temp(path, content, mode);
  if (tmp.empty())
    return failure("write", path, errno);
  // link() fails with EEXIST instead of replacing: no race can lose a file.
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  if (rc != 0 && (err == EPERM || err == ENOTSUP || err == EXDEV)) {
    // Filesystems without hard links: check-then-rename is the best left.
    if (::lstat(path.c_str(), &st) == 0) {
      err = EEXIST;
    } else {
      rc = ::rename(tmp.c_str(), path.c_str());
      err = errno;
    }
  }
  ::unlink(tmp.c_str());
  if (rc != 0 && err == EEXIST)
    return {write_outcome::kept, {}};
  if (rc != 0)
    return failure("create", path, err);
  sync_dir(parent_of(path));
  return {write_outcome::written, {}};
}

write_result replace_file_atomic(const std::string& path,
                                 std::string_view content, unsigned mode,
                                 existing_mode policy) {
  return replace_checked(path, content, nullptr, mode, policy);
}

write_result replace_file_if_unchanged(const std::string& path,
                                       std::string_view content,
                                       std::string_view expected,
                                       unsigned mode, existing_mode policy) {
  return replace_checked(path, content, &expected, mode, policy);
}

write_result rewrite_file_in_place(const std::string& path, unsigned mode,
                                   std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, mode);
  if (fd < 0)
    return failure("write", path, errno);
  bool ok = ::fchmod(fd, mode) == 0; // exact, whatever it was
  size_t done = 0;
  while (ok && done < content.size()) {
    auto n = ::pwrite(fd, content.data() + done, content.size() - done,
                      static_cast<off_t>(done));
    if (n < 0 && errno == EINTR)
      continue;
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  ok = ok && ::ftruncate(fd, static_cast<off_t>(content.size())) == 0;
  ok = ok && ::fsync(fd) == 0;
  int err = errno;
  ::close(fd);
  if (!ok)
    return failure("write", path, err);
  return {write_outcome::written, {}};
}

void sync_directory(const std::string& dir) {
  sync_dir(dir);
}

std::string append_file_synced(const std::string& path,
                               std::string_view content, unsigned mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                  mode);
  if (fd < 0)
    return "cannot open " + path + ": " + std::strerror(errno);
  while (!content.empty()) {
    auto n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      auto err = "cannot write " + path + ": " + std::strerror(errno);
      ::close(fd);
      return err;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  if (::fsync(fd) != 0) {
    auto err = "cannot sync " + path + ": " + std::strerror(errno);
    ::close(fd);
    return err;
  }
  ::close(fd);
  return "";
}

} // namespace nb

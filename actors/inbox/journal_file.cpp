#include "actors/inbox/journal_file.hpp"

#include <chrono>
#include <cerrno>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "actors/common/clock.hpp"
#include "actors/inbox/journal_frames.hpp"
#include "actors/store/posix_io.hpp"

namespace nb::inbox {

namespace {

using store_io::sys_error;

/// Writes `bytes` to `path` opened with `flags` and fsyncs it.
caf::error write_synced(const std::string& path, std::string_view bytes,
                        int flags) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0600);
  if (fd < 0)
    return sys_error("cannot open", path, errno);
  int err = store_io::write_all(fd, bytes);
  if (err == 0 && ::fsync(fd) != 0)
    err = errno;
  ::close(fd);
  if (err != 0)
    return sys_error("cannot write", path, err);
  return {};
}

/// <dir>/journal, <dir>/journal.1, ...
std::string slot_path(const std::string& dir, int slot) {
  return dir + "/journal" + (slot ? "." + std::to_string(slot) : "");
}

constexpr int max_slots = 64;

/// Copies `bytes` aside when their scan ends in damage (never lost).
caf::error keep_damaged(const std::string& path, const std::string& bytes) {
  if (scan_frames(bytes).tail != tail_kind::corrupt)
    return {};
  return write_synced(path + ".damaged-" + std::to_string(unix_ms()), bytes,
                      O_TRUNC);
}

} // namespace

journal_file::~journal_file() {
  for (auto& o : orphans_)
    ::close(o.lock_fd);
  if (fd_ >= 0)
    ::close(fd_);
  if (lock_fd_ >= 0)
    ::close(lock_fd_); // releases the flock
}

caf::expected<std::string> journal_file::open(const std::string& dir) {
  if (auto err = store_io::make_dirs(dir))
    return err;
  dir_ = dir;
  // A second gateway on the same home gets its own journal; a restarted
  // one takes the first free name, so it finds what its predecessor left.
  for (int slot = 0; slot < max_slots && lock_fd_ < 0; ++slot) {
    auto base = slot_path(dir, slot);
    int fd = ::open((base + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
                    0600);
    if (fd < 0)
      return sys_error("cannot open", base + ".lock", errno);
    // The first name is worth a short wait: a gateway restarted at once
    // may find its predecessor's worker still closing the file.
    bool locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    for (int i = 0; !locked && slot == 0 && i < 50; ++i) {
      ::usleep(20000);
      locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    }
    if (!locked) {
      ::close(fd);
      continue;
    }
    lock_fd_ = fd;
    path_ = base;
  }
  if (lock_fd_ < 0)
    return store_io::store_error("inbox: every journal under " + dir
                                 + " is locked by another process");
  int e = 0;
  auto text = store_io::read_file(path_, &e);
  std::string bytes;
  if (text)
    bytes = std::move(*text);
  else if (e != ENOENT)
    return text.error();
  auto scan = scan_frames(bytes);
  if (auto err = keep_damaged(path_, bytes))
    return err;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0)
    return sys_error("cannot open", path_, errno);
  if (scan.good_bytes < bytes.size()) {
    if (::ftruncate(fd_, static_cast<off_t>(scan.good_bytes)) != 0
        || ::fsync(fd_) != 0)
      return sys_error("cannot truncate", path_, errno);
    bytes.resize(scan.good_bytes);
  }
  size_ = static_cast<int64_t>(bytes.size());
  if (auto err = store_io::fsync_dir(dir))
    return err;
  return bytes;
}

caf::expected<std::vector<orphan_journal>> journal_file::adopt_orphans() {
  std::vector<orphan_journal> out;
  for (int slot = 0; slot < max_slots; ++slot) {
    auto base = slot_path(dir_, slot);
    if (base == path_ || ::access(base.c_str(), F_OK) != 0)
      continue;
    int fd = ::open((base + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
                    0600);
    if (fd < 0)
      return sys_error("cannot open", base + ".lock", errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd); // a running gateway's journal
      continue;
    }
    orphans_.push_back({base, fd});
    int e = 0;
    auto text = store_io::read_file(base, &e);
    if (!text) {
      if (e == ENOENT)
        continue; // removed meanwhile by whoever held it
      return text.error();
    }
    if (auto err = keep_damaged(base, *text))
      return err;
    text->resize(scan_frames(*text).good_bytes);
    out.push_back({base, std::move(*text)});
  }
  return out;
}

caf::error journal_file::retire_orphans() {
  for (auto& o : orphans_) {
    if (::unlink(o.path.c_str()) != 0 && errno != ENOENT)
      return sys_error("cannot remove", o.path, errno);
  }
  auto err = store_io::fsync_dir(dir_);
  for (auto& o : orphans_)
    ::close(o.lock_fd);
  orphans_.clear();
  return err;
}

caf::error journal_file::append(std::string_view bytes, bool sync) {
  if (fd_ < 0)
    return store_io::store_error("inbox: the journal is not open");
  int err = store_io::write_all(fd_, bytes);
  if (err == 0 && sync && ::fdatasync(fd_) != 0)
    err = errno;
  if (err != 0) {
    // Never leave half a record in the middle of the journal.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      // The file may end in a torn record: open() cuts it at start.
    }
    return sys_error("cannot append to", path_, err);
  }
  size_ += static_cast<int64_t>(bytes.size());
  return {};
}

caf::error journal_file::replace(std::string_view bytes) {
  auto tmp = path_ + ".tmp";
  if (auto err = write_synced(tmp, bytes, O_TRUNC))
    return err;
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    auto e = errno;
    ::unlink(tmp.c_str());
    return sys_error("cannot rename a temp file over", path_, e);
  }
  if (auto err = store_io::fsync_dir(dir_))
    return err;
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    return sys_error("cannot open", path_, errno);
  ::close(fd_);
  fd_ = fd;
  size_ = static_cast<int64_t>(bytes.size());
  return {};
}

caf::error journal_file::keep(const std::string& name, std::string_view line) {
  return write_synced(dir_ + "/" + name, line, O_APPEND);
}

} // namespace nb::inbox

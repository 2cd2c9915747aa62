// In-place saves of config.json (see the header for why): a lock file and a
// recovery copy in "<dir>/.config-save", the file itself rewritten in place.
#include "config/inplace_save.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/common/file_text.hpp"

namespace nb {

namespace fs = std::filesystem;

namespace {

std::string copy_path(const std::string& target) {
  return config_save_dir(target) + "/" + fs::path{target}.filename().string();
}

/// flock on "<save dir>/lock" for as long as it lives: one in-place save or
/// guarded read at a time, across processes (each lock is its own open file
/// description, so threads of one process exclude each other too).
class save_lock {
public:
  explicit save_lock(const std::string& target) {
    auto path = config_save_dir(target) + "/lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0)
      return;
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
  }
  ~save_lock() {
    if (fd_ >= 0)
      ::close(fd_); // releases the lock
  }
  save_lock(const save_lock&) = delete;
  save_lock& operator=(const save_lock&) = delete;
  bool held() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

/// Removes the copy once `target` holds what it holds, durably.
void drop_copy(const std::string& target) {
  ::unlink(copy_path(target).c_str());
  sync_directory(config_save_dir(target));
}

std::optional<std::string> read_plain(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return ec ? std::nullopt : std::optional<std::string>{std::string{}};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  ::close(fd);
  return read_file_text(path);
}

/// Whether `a` was last modified before `b` (file times tick coarsely:
/// equal times count as not older).
bool older_than(const std::string& a, const std::string& b) {
  struct stat sa{}, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0)
    return false;
  if (sa.st_mtim.tv_sec != sb.st_mtim.tv_sec)
    return sa.st_mtim.tv_sec < sb.st_mtim.tv_sec;
  return sa.st_mtim.tv_nsec < sb.st_mtim.tv_nsec;
}

/// Under the lock: a copy left behind is a save a crash interrupted (a live
/// save holds the lock until it removed its copy). Writes it back into
/// `target`; nullopt when there was none, else the text `target` should
/// hold (the copy's, also when writing it back failed).
std::optional<std::string> finish_interrupted_save(const std::string& target) {
  auto copy = copy_path(target);
  std::error_code ec;
  if (!fs::exists(copy, ec))
    return std::nullopt;
  auto intended = read_file_text(copy);
  auto now = read_plain(target).value_or(std::string{});
  if (now == intended) {
    drop_copy(target);
    return intended;
  }
  // Older than the copy: the crash came before the rewrite began, the file
  // still holds what the save replaces. Changed since the copy was made and
  // parsing: a rewrite torn across a same-length change (blocks of the new
  // and the old text), or a hand edit made after the crash. Nothing is
  // thrown away then: the file's text is kept beside the copy.
  if (!now.empty() && !older_than(target, copy)
      && nlohmann::json::accept(now)) {
    auto aside = config_save_dir(target) + "/"
                 + fs::path{target}.filename().string() + ".before-recovery";
    auto w = replace_file_atomic(aside, now, 0600, existing_mode::replace);
    if (w.outcome == write_outcome::failed)
      return intended; // neither is lost: the copy stays for the next read
    spdlog::warn("{}: a save was interrupted; its text is back in the file "
                 "and what the file held instead is kept in {}",
                 target, aside);
  }
  if (rewrite_file_in_place(target, 0600, intended).outcome
      == write_outcome::written)
    drop_copy(target);
  return intended;
}

} // namespace

std::string config_target(const std::string& path) {
  std::error_code ec;
  if (fs::is_symlink(path, ec)) {
    auto real = fs::canonical(path, ec);
    if (!ec)
      return real.string();
  }
  return path;
}

std::string config_save_dir(const std::string& target) {
  auto parent = fs::path{target}.parent_path().string();
  return (parent.empty() ? std::string{"."} : parent) + "/.config-save";
}

bool config_saves_in_place(const std::string& target) {
  struct stat st{};
  return ::stat(config_save_dir(target).c_str(), &st) == 0
         && S_ISDIR(st.st_mode);
}

std::string save_config_in_place_from_now(const std::string& target) {
  auto dir = config_save_dir(target);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return "cannot create " + dir + ": " + std::strerror(errno);
  if (!config_saves_in_place(target))
    return dir + " is not a directory";
  return {};
}

write_result rewrite_config_in_place(const std::string& target,
                                     std::string_view text,
                                     const std::string_view* expected) {
  save_lock lock{target};
  if (!lock.held())
    return {write_outcome::failed, "cannot lock " + config_save_dir(target)
                                     + "/lock: " + std::strerror(errno)};
  finish_interrupted_save(target);
  if (expected) {
    auto now = read_plain(target);
    if (!now)
      return {write_outcome::failed, "cannot read " + target};
    if (*now != *expected)
      return {write_outcome::kept, {}};
  }
  auto copy = copy_path(target);
  auto w = replace_file_atomic(copy, text, 0600, existing_mode::replace);
  if (w.outcome == write_outcome::failed)
    return w;
  w = rewrite_file_in_place(target, 0600, text);
  if (w.outcome != write_outcome::written)
    return w; // the copy stays: the next read or save writes it back
  drop_copy(target);
  return w;
}

std::optional<std::string> read_config_text(const std::string& path) {
  auto target = config_target(path);
  if (!config_saves_in_place(target))
    return read_plain(path);
  save_lock lock{target};
  if (!lock.held()) { // read-only place: the copy, if any, is the config
    auto copy = copy_path(target);
    std::error_code ec;
    return fs::exists(copy, ec) ? read_plain(copy) : read_plain(target);
  }
  if (auto finished = finish_interrupted_save(target))
    return finished;
  return read_plain(target);
}

} // namespace nb

// Which sessions folder belongs to a workspace, decided exactly as the
// original nanobot decides it, so a home works with either program:
// `<workspace>/.nanobot/workspace-id` holds a 32-hex id; the sessions live
// in `<config-dir>/sessions/<id>/`, whose `.workspace` file records the
// workspace path that owns them. A copied workspace (the recorded path still
// exists and is another directory) gets a fresh id, so two copies never
// share one transcript; a moved one keeps its id and the marker follows it.
// All of it runs under `<config-dir>/sessions/.workspace-migration.lock`,
// the original's lock for this step.
#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actors/common/file_lock.hpp"
#include "actors/common/log.hpp"
#include "actors/common/strings.hpp"
#include "actors/store/posix_io.hpp"
#include "actors/store/session_files.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

using namespace store_io;

constexpr auto migration_lock_timeout = std::chrono::seconds(30);

/// 32 lower-case hex digits. By hand: compiling the equivalent std::regex
/// was 0.74 M instructions of every start (callgrind).
bool is_workspace_id(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_symlink(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

/// Python's Path.resolve(strict=False): the real path of the longest
/// existing prefix, the rest appended as written.
std::string resolved(const std::string& path) {
  std::string p = path;
  if (!p.empty() && p[0] == '~')
    if (const char* home = std::getenv("HOME"))
      p = home + p.substr(1);
  std::string tail;
  while (true) {
    if (char* real = ::realpath(p.c_str(), nullptr)) {
      std::string out{real};
      std::free(real);
      return tail.empty() ? out : (out == "/" ? "" : out) + tail;
    }
    auto slash = p.find_last_of('/');
    if (slash == std::string::npos || p.empty())
      return path;
    tail = p.substr(slash) + tail;
    p = slash == 0 ? "/" : p.substr(0, slash);
  }
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0
         && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

caf::error write_atomic(const std::string& path, const std::string& text) {
  auto r = replace_file_atomic(path, text, 0600);
  if (r.outcome == write_outcome::failed)
    return store_error(r.error);
  return caf::none;
}

caf::expected<std::string> read_id(const std::string& marker) {
  if (is_symlink(marker))
    return store_error("workspace identity marker must not be a symlink: "
                       + marker);
  auto text = read_file(marker);
  if (!text)
    return text.error();
  auto id = trim_space(*text);
  if (!is_workspace_id(id))
    return store_error("workspace identity marker is invalid: " + marker
                       + "; restore its original 32-character identifier "
                         "before starting nanobot");
  return id;
}

caf::expected<std::string> id_path(const std::string& workspace) {
  auto state_dir = workspace + "/.nanobot";
  if (is_symlink(state_dir))
    return store_error("workspace state directory must not be a symlink: "
                       + state_dir);
  if (auto err = make_dirs(state_dir))
    return err;
  return state_dir + "/workspace-id";
}

/// Finds the namespace whose `.workspace` names this workspace (its id file
/// was removed by a cleanup); more than one is an error.
caf::expected<std::string> find_namespace(const std::string& root,
                                          const std::string& workspace) {
  std::vector<std::string> matches;
  DIR* d = ::opendir(root.c_str());
  if (!d)
    return std::string{};
  while (auto* e = ::readdir(d)) {
    std::string name = e->d_name;
    auto dir = root + "/" + name;
    struct stat st;
    if (!is_workspace_id(name) || ::lstat(dir.c_str(), &st) != 0
        || !S_ISDIR(st.st_mode))
      continue;
    auto marker = dir + "/.workspace";
    if (::lstat(marker.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    auto text = read_file(marker);
    if (!text)
      continue;
    auto recorded = resolved(trim_space(*text));
    if (recorded == workspace || same_file(recorded, workspace))
      matches.push_back(name);
  }
  ::closedir(d);
  if (matches.size() > 1)
    return store_error("multiple session namespaces claim workspace "
                       + workspace
                       + "; remove the stale namespace marker before "
                         "starting nanobot");
  return matches.empty() ? std::string{} : matches.front();
}

caf::expected<std::string> load_or_create_id(const std::string& workspace,
                                             const std::string& root) {
  auto marker = id_path(workspace);
  if (!marker)
    return marker.error();
  if (exists(*marker))
    return read_id(*marker);
  auto recovered = find_namespace(root, workspace);
  if (!recovered)
    return recovered.error();
  if (!recovered->empty()) {
    if (auto err = write_atomic(*marker, *recovered + "\n"))
      return err;
    return *recovered;
  }
  auto id = random_hex(16);
  auto made = create_file_atomic(*marker, id + "\n", 0600);
  if (made.outcome == write_outcome::failed)
    return store_error(made.error);
  if (made.outcome == write_outcome::kept) // another process won the race
    return read_id(*marker);
  return id;
}

bool has_entries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d)
    return false;
  bool any = false;
  while (auto* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") {
      any = true;
      break;
    }
  }
  ::closedir(d);
  return any;
}

/// Binds `id` to this workspace, rotating a copied workspace to a new id.
caf::expected<std::string> claim(const std::string& root,
                                 const std::string& workspace,
                                 std::string id) {
  auto stamp = workspace + "\n";
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto dir = root + "/" + id;
    auto marker = dir + "/.workspace";
    if (is_symlink(dir))
      return store_error("session namespace must not be a symlink: " + dir);
    if (!exists(dir)) {
      if (auto err = make_dirs(dir))
        return err;
      if (auto err = write_atomic(marker, stamp))
        return err;
      return id;
    }
    if (is_symlink(marker))
      return store_error("session workspace marker must not be a symlink: "
                         + marker);
    if (!exists(marker)) {
      // The original refuses such a folder. Ours are the only ones that
      // look like this (our earlier versions wrote no marker), so claim it
      // and say so: the original starts on this home again afterwards.
      if (has_entries(dir))
        log::get("store")->warn("session folder {} has sessions but no "
                                ".workspace marker (written by an earlier "
                                "nanobot-cpp); recording {} as its workspace",
                                dir, workspace);
      if (auto err = write_atomic(marker, stamp))
        return err;
      return id;
    }
    auto text = read_file(marker);
    if (!text)
      return text.error();
    auto recorded_text = trim_space(*text);
    if (recorded_text.empty())
      return store_error("session workspace marker is empty: " + marker);
    auto recorded = resolved(recorded_text);
    if (recorded == workspace)
      return id;
    if (same_file(recorded, workspace) || !exists(recorded)) {
      // The same directory by another name, or a workspace that moved.
      if (auto err = write_atomic(marker, stamp))
        return err;
      return id;
    }
    // Both paths exist and differ: this workspace is a copy.
    id = random_hex(16);
    auto path = id_path(workspace);
    if (!path)
      return path.error();
    if (auto err = write_atomic(*path, id + "\n"))
      return err;
  }
  return store_error("could not allocate an isolated session namespace for "
                     + workspace);
}

} // namespace

caf::expected<std::string> resolve_sessions_dir(const std::string& config_dir,
                                                const std::string& workspace) {
  if (config_dir.empty() || workspace.empty())
    return store_error("resolve_sessions_dir: empty config dir or workspace");
  if (auto err = make_dirs(workspace))
    return err;
  auto ws = resolved(workspace);
  if (auto err = make_dirs(config_dir + "/sessions"))
    return err;
  auto root = resolved(config_dir + "/sessions");
  ::chmod(root.c_str(), 0700);
  if (root == ws || root.rfind(ws + "/", 0) == 0)
    return store_error("session storage must be outside the agent workspace; "
                       "move --config outside --workspace or choose a nested "
                       "workspace directory");
  file_lock lock{root + "/.workspace-migration.lock", lock_mode::exclusive,
                 migration_lock_timeout};
  if (!lock.held())
    return store_error(lock.error());
  auto id = load_or_create_id(ws, root);
  if (!id)
    return id.error();
  auto claimed = claim(root, ws, std::move(*id));
  if (!claimed)
    return claimed.error();
  auto dir = root + "/" + *claimed;
  if (auto err = make_dirs(dir))
    return err;
  return dir;
}

} // namespace nb

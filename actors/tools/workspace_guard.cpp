#include "actors/tools/workspace_guard.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <regex>
#include <vector>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actors/tools/sandbox/config_workspace.hpp"

namespace nb {

const char* const boundary_note
  = " (hard policy boundary; do not retry with another path)";

namespace {

std::string home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h)
    return h;
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0
      && found && found->pw_dir)
    return found->pw_dir;
  return "/";
}

// Splits on '/', dropping empty components.
std::vector<std::string> split_components(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    auto j = path.find('/', i);
    if (j == std::string::npos)
      j = path.size();
    if (j > i)
      out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string parent_of(const std::string& p) {
  auto pos = p.rfind('/');
  return pos == 0 || pos == std::string::npos ? "/" : p.substr(0, pos);
}

std::string join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

} // namespace

std::string expand_user(const std::string& path) {
  if (path.empty() || path[0] != '~')
    return path;
  auto slash = path.find('/');
  auto user = path.substr(1, slash == std::string::npos ? std::string::npos
                                                         : slash - 1);
  auto rest = slash == std::string::npos ? std::string{} : path.substr(slash);
  if (user.empty())
    return home_dir() + rest;
  // getpwnam_r: the static-buffer getpwnam is not safe on worker threads.
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) == 0
      && found && found->pw_dir)
    return std::string{found->pw_dir} + rest;
  return path;
}

std::string absolute_path(const std::string& path, const std::string& base) {
  auto p = expand_user(path);
  if (!p.empty() && p[0] == '/')
    return p;
  auto b = base.empty() ? std::string{"/"} : base;
  return p.empty() ? b : b + "/" + p;
}

path_result resolve_real_path(const std::string& path,
                              const std::string& base) {
  if (path.find('\0') != std::string::npos)
    return {{}, "Error: Path contains a NUL byte"};
  if (path.size() > max_path_bytes)
    return {{}, "Error: Path is too long (" + std::to_string(path.size())
                  + " bytes; the limit is " + std::to_string(max_path_bytes)
                  + ")"};
  auto abs = absolute_path(path, base);
  // Pending components, the next one last.
  auto pending = split_components(abs);
  std::reverse(pending.begin(), pending.end());
  std::string current = "/";
  int hops = 0;
  while (!pending.empty()) {
    auto name = std::move(pending.back());
    pending.pop_back();
    if (name.empty() || name == ".")
      continue;
    if (name == "..") {
      current = parent_of(current);
      continue;
    }
    if (name.size() > NAME_MAX)
      return {{}, "Error: Path component is too long ("
                    + std::to_string(name.size()) + " bytes; the limit is "
                    + std::to_string(NAME_MAX) + ")"};
    auto candidate = join(current, name);
    if (candidate.size() > max_path_bytes)
      return {{}, "Error: Path is too long after resolving symlinks"};
    struct stat st;
    if (::lstat(candidate.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      // Missing (or unreadable) components are kept as written: a later
      // mkdir would create exactly these.
      current = std::move(candidate);
      continue;
    }
    if (++hops > max_symlink_hops)
      return {{}, "Error: Too many levels of symbolic links resolving "
                    + path + " (a symlink loop?)"};
    std::vector<char> buf(PATH_MAX + 1);
    auto n = ::readlink(candidate.c_str(), buf.data(), PATH_MAX);
    if (n < 0)
      return {{}, "Error: Cannot read symlink " + candidate};
    std::string target(buf.data(), static_cast<size_t>(n));
    auto parts = split_components(target);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it)
      pending.push_back(std::move(*it));
    // A relative target continues from the link's directory (current).
    if (!target.empty() && target[0] == '/')
      current = "/";
  }
  return {current, {}};
}

bool path_within(const std::string& path, const std::string& root) {
  if (root == "/")
    return !path.empty() && path[0] == '/';
  if (path.size() < root.size() || path.compare(0, root.size(), root) != 0)
    return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

bool is_device_path(const std::string& path) {
  static const std::regex proc_fd{R"(^/proc/[^/]+/fd(/.*)?$)"};
  if (path.rfind("/dev/", 0) == 0)
    return true;
  return path.rfind("/proc/", 0) == 0 && path.size() < 256
         && std::regex_match(path, proc_fd);
}

path_result resolve_tool_path(const std::string& user_path,
                              const tool_context& ctx, const char* action) {
  if (user_path.find('\0') != std::string::npos)
    return {{}, "Error: Path contains a NUL byte"};
  auto device_error = [&](const std::string& p) {
    return path_result{{}, std::string{"Error: "} + action + " " + p
                             + " is blocked (device path that could hang or "
                               "produce infinite output)."};
  };
  // The name as written first: /dev/stderr resolves to /proc/self/fd/2,
  // and /proc/self/fd/0 may resolve to "pipe:[123]".
  if (user_path.size() <= max_path_bytes
      && is_device_path(absolute_path(user_path, ctx.workspace)))
    return device_error(user_path);
  auto real = resolve_real_path(user_path, ctx.workspace);
  if (!real.ok())
    return real;
  if (is_device_path(real.path))
    return device_error(user_path);
  if (ctx.restrict_to_workspace) {
    auto root = resolve_real_path(ctx.workspace, "/");
    if (!root.ok() || !path_within(real.path, root.path))
      return {{}, "Error: Path " + user_path + " is outside allowed directory "
                    + ctx.workspace + boundary_note};
    // A workspace that is the config dir: the gateway's own entries in it
    // are as out of reach as the usual layout's whole config dir.
    if (within_any(real.path, gateway_state_in(root.path, ctx.config_dir,
                                               ctx.config_file)))
      return {{}, "Error: Path " + user_path + " is the gateway's own state "
                    "(its config, chats or logs), not part of the workspace"
                    + boundary_note};
  }
  return real;
}

} // namespace nb

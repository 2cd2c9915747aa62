#include "actors/tools/sandbox/bwrap_args.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using args_t = std::vector<std::string>;

void add(args_t& a, std::initializer_list<std::string> words) {
  a.insert(a.end(), words);
}

// Covers `path` with something empty: a file with /dev/null, a directory
// with a read-only tmpfs. Missing paths need nothing (and bwrap could not
// create a mount point for them inside a read-only tree).
void mask(args_t& a, const std::string& path, const path_probe& probe) {
  auto k = probe(path).kind;
  if (k == path_kind::file)
    add(a, {"--ro-bind", "/dev/null", path});
  else if (k == path_kind::dir)
    add(a, {"--tmpfs", path, "--remount-ro", path});
}

path_kind lstat_kind(const std::string& path) {
  path_kind out;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return out;
  if (S_ISLNK(st.st_mode)) {
    char buf[4096];
    auto n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    out.kind = path_kind::symlink;
    out.target.assign(buf, n > 0 ? static_cast<size_t>(n) : 0);
  } else {
    out.kind = S_ISDIR(st.st_mode) ? path_kind::dir : path_kind::file;
  }
  return out;
}

} // namespace

bool parse_sandbox_network(const std::string& text, sandbox_network& out) {
  if (text == "none")
    out = sandbox_network::none;
  else if (text == "loopback-denied")
    out = sandbox_network::loopback_denied;
  else if (text == "host")
    out = sandbox_network::host;
  else
    return false;
  return true;
}

const std::vector<std::string>& sandbox_system_trees() {
  static const std::vector<std::string> trees{
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"};
  return trees;
}

const std::vector<std::string>& sandbox_etc_secrets() {
  static const std::vector<std::string> secrets{
    "/etc/shadow",   "/etc/shadow-",      "/etc/gshadow",
    "/etc/gshadow-", "/etc/sudoers",      "/etc/sudoers.d",
    "/etc/ssh",      "/etc/ssl/private",  "/etc/security/opasswd",
    "/etc/nanobot"};
  return secrets;
}

std::vector<std::string> bwrap_args(const sandbox_plan& p,
                                    const path_probe& probe) {
  args_t a;
  // New user, PID, IPC, UTS (and cgroup) namespaces: the gateway's pid,
  // environment and other processes are invisible, nothing outside can be
  // signalled, and the command holds no capabilities anywhere.
  add(a, {"--unshare-user", "--unshare-pid", "--unshare-ipc",
          "--unshare-uts", "--unshare-cgroup-try"});
  if (p.network != sandbox_network::host)
    a.push_back("--unshare-net");
  add(a, {"--uid", std::to_string(p.uid), "--gid", std::to_string(p.uid),
          "--hostname", "sandbox", "--cap-drop", "ALL", "--die-with-parent",
          "--new-session"});
  // The system, read-only; /bin and /lib are often symlinks into /usr.
  std::vector<std::string> visible;
  for (auto& tree : sandbox_system_trees()) {
    auto k = probe(tree);
    if (k.kind == path_kind::symlink) {
      add(a, {"--symlink", k.target, tree});
    } else if (k.kind == path_kind::dir) {
      add(a, {"--ro-bind", tree, tree});
      visible.push_back(tree);
    }
  }
  for (auto& secret : sandbox_etc_secrets())
    mask(a, secret, probe);
  if (p.outbound && p.resolv_fd >= 0) // the slirp network's own resolver
    add(a, {"--ro-bind-data", std::to_string(p.resolv_fd),
            "/etc/resolv.conf"});
  add(a, {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  for (auto& b : p.ro_binds) {
    add(a, {"--ro-bind-try", b, b});
    visible.push_back(b);
  }
  for (auto& b : p.rw_binds) {
    add(a, {"--bind-try", b, b});
    visible.push_back(b);
  }
  auto inside_visible = [&](const std::string& path) {
    for (auto& v : visible)
      if (path_within(path, v))
        return true;
    return false;
  };
  // Secrets inside a bound tree are covered before the workspace goes on
  // top (a config dir that contains the workspace must not hide it).
  for (auto& h : p.hidden)
    if (!path_within(h, p.workspace) && inside_visible(h))
      mask(a, h, probe);
  add(a, {"--bind", p.workspace, p.workspace});
  for (auto& h : p.hidden)
    if (h != p.workspace && path_within(h, p.workspace))
      mask(a, h, probe);
  if (p.info_fd >= 0)
    add(a, {"--info-fd", std::to_string(p.info_fd)});
  if (p.block_fd >= 0)
    add(a, {"--block-fd", std::to_string(p.block_fd)});
  add(a, {"--chdir", p.cwd.empty() ? p.workspace : p.cwd, "--"});
  return a;
}

std::vector<std::string> bwrap_args(const sandbox_plan& plan) {
  return bwrap_args(plan, lstat_kind);
}

} // namespace nb

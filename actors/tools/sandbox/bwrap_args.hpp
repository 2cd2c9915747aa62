// Sandbox: the bubblewrap command line for one exec. Pure: which trees are
// visible, which are writable, which secrets are masked and which
// namespaces are new are decided here from data, and tested without
// running anything.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace nb {

/// tools.exec.network: what the sandboxed command may reach.
enum class sandbox_network {
  none,            ///< its own network namespace with only a loopback
  loopback_denied, ///< outbound through slirp4netns; host loopback and
                   ///< private ranges unreachable (none without slirp4netns)
  host,            ///< the gateway's own network (host loopback included)
};

/// Parses "none", "loopback-denied" or "host"; false for anything else.
bool parse_sandbox_network(const std::string& text, sandbox_network& out);

/// Everything the command line depends on. Paths are absolute real paths.
struct sandbox_plan {
  std::string workspace;                 ///< bound read-write
  std::string cwd;                       ///< inside the workspace
  std::vector<std::string> ro_binds;     ///< tools.exec.sandboxRoBinds
  std::vector<std::string> rw_binds;     ///< tools.exec.sandboxRwBinds
  /// Never visible, even when inside a bound tree: the config directory
  /// (config.json with the keys, sessions/) and the like.
  std::vector<std::string> hidden;
  sandbox_network network = sandbox_network::loopback_denied;
  bool outbound = false; ///< slirp4netns configures the namespace
  unsigned uid = 65534;  ///< the command's uid inside the user namespace
  /// Descriptor numbers in bwrap's process (-1: unused): where bwrap
  /// reports the sandbox's pid, what it waits on before starting the
  /// command, and a resolv.conf for the slirp network.
  int info_fd = -1;
  int block_fd = -1;
  int resolv_fd = -1;
};

/// The read-only system trees: /usr, /bin, /sbin, /lib*, /etc.
const std::vector<std::string>& sandbox_system_trees();

/// Files and directories under /etc that stay hidden (password hashes, host
/// keys, sudo rules).
const std::vector<std::string>& sandbox_etc_secrets();

/// What is at a path (lstat): a mask or a symlinked /lib needs to know.
struct path_kind {
  enum kind_t { missing, file, dir, symlink } kind = missing;
  std::string target; ///< a symlink's target as written
};

using path_probe = std::function<path_kind(const std::string&)>;

/// Returns bwrap's arguments up to and including "--"; the command's argv
/// follows. `probe` reports what is on disk.
std::vector<std::string> bwrap_args(const sandbox_plan& plan,
                                    const path_probe& probe);

/// The same with the real file system.
std::vector<std::string> bwrap_args(const sandbox_plan& plan);

} // namespace nb

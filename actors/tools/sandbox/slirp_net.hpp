// Sandbox: the "loopback-denied" network. bwrap gives the command a network
// namespace of its own; slirp4netns (a user-mode TCP/IP stack running
// outside) gives it outbound access through a tap device, with the host's
// loopback switched off (--disable-host-loopback); routes added inside the
// namespace make the private and link-local ranges unreachable. The
// command starts only after all of that is in place (bwrap --block-fd).
#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

namespace nb {

/// The ranges a sandboxed command cannot reach (besides the host's
/// loopback, which slirp4netns refuses): RFC 1918, CGNAT, link-local and
/// metadata, "this network", benchmarking, multicast and reserved.
const std::vector<std::string>& sandbox_blocked_ranges();

/// One command's user-mode network.
class slirp_network {
public:
  /// `slirp4netns`: the helper's absolute path.
  explicit slirp_network(std::string slirp4netns);
  ~slirp_network();
  slirp_network(const slirp_network&) = delete;
  slirp_network& operator=(const slirp_network&) = delete;

  /// Whether the pipes exist (false: run without a network).
  bool ok() const {
    return ok_;
  }

  /// The descriptors bwrap inherits, in the order of its --info-fd,
  /// --block-fd and --ro-bind-data (resolv.conf) arguments.
  std::vector<int> bwrap_fds() const;

  /// Once bwrap runs (`bwrap_pid`): reads the sandbox's pid, starts
  /// slirp4netns on its namespace, blocks the private ranges, then lets
  /// the command start. Returns "" or what failed.
  std::string attach(pid_t bwrap_pid);

  /// slirp4netns's pid once attach started it (-1 before).
  pid_t pid() const {
    return slirp_pid_;
  }

  /// Finds slirp4netns; `why_not` says what to install when it is missing.
  static bool available(std::string& slirp4netns, std::string& why_not);

private:
  std::string slirp_;
  bool ok_ = false;
  int info_[2] = {-1, -1};
  int block_[2] = {-1, -1};
  int resolv_[2] = {-1, -1};
  int exit_[2] = {-1, -1}; ///< slirp4netns quits when our end closes
  pid_t slirp_pid_ = -1;
};

} // namespace nb

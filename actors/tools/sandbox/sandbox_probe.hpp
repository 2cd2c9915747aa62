// Sandbox: can exec run inside bubblewrap here? Found once per bwrap path
// by running a no-op in a fresh sandbox, and explained for `nanobot status`
// and the gateway's start-up log.
#pragma once

#include <string>

#include "config/settings.hpp"

namespace nb {

/// What this machine offers the exec sandbox.
struct sandbox_status {
  bool available = false; ///< bwrap runs a command in new namespaces
  std::string bwrap;      ///< its absolute path ("" when not installed)
  std::string problem;    ///< why it is not available
  std::string fix;        ///< what to do about it
  /// What bounds the number of processes of one command: "cgroup v1",
  /// "cgroup v2", "RLIMIT_NPROC" (a non-root gateway) or "" (nothing
  /// beyond the PID namespace and the timeout: root without a cgroup).
  std::string process_limit;
  /// The "loopback-denied" network's helper; when it is missing,
  /// `outbound_problem` says so, and such commands run with no network.
  std::string slirp4netns, outbound_problem;
};

/// The default bwrap locations, in order (never the workspace's PATH).
std::string find_bwrap();

/// Returns the status for `bwrap` ("" = find_bwrap()), cached per path: the
/// first call runs `bwrap ... true` once (a few milliseconds).
const sandbox_status& sandbox_status_for(const std::string& bwrap = {});

/// Whether exec commands run in the sandbox: tools.restrictToWorkspace
/// (on by default) or tools.exec.sandbox "bwrap".
bool exec_sandboxed(const settings& cfg);

/// The error exec returns (and the gateway logs) when the sandbox is
/// required but unavailable: the problem and how to install bubblewrap.
std::string sandbox_unavailable_text(const sandbox_status& s);

/// One line for `nanobot status`: on/off, network mode, process limit.
std::string describe_sandbox(const settings& cfg, const sandbox_status& s);

} // namespace nb

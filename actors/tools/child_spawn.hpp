// Tools: starting a child process with resource limits. A vfork-style
// clone + execve rather than posix_spawn, because the limits must be set
// inside the child before it runs anything (setrlimit in the parent would
// bind the gateway).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <sys/types.h>

namespace nb {

/// Resource limits for a child; 0 leaves a limit as inherited.
struct child_limits {
  uint64_t processes = 0;  ///< more processes/threads the user may start
  uint64_t memory_mb = 0;  ///< data segment (heap, anonymous memory)
  uint64_t cpu_s = 0;      ///< CPU seconds per process (then SIGXCPU)
  bool no_core = true;     ///< no core dumps
};

/// What to start and how its descriptors are wired.
struct child_spec {
  std::string program;           ///< absolute path
  std::vector<std::string> argv; ///< argv[0] included
  std::vector<std::string> env;  ///< the whole environment
  std::string cwd;               ///< "" = inherit
  int stdin_fd = -1;             ///< -1: /dev/null
  int stdout_fd = -1;            ///< -1: /dev/null
  int stderr_fd = -1;            ///< -1: /dev/null
  bool new_group = true;         ///< its own process group (pgid = pid)
  /// Descriptors placed at 3, 4, ... in the child, in this order (the
  /// DevTools pipe Chromium reads on 3 and writes on 4; the sandbox's status
  /// and start pipes). Everything else above 2 is closed.
  std::vector<int> extra_fds;
  bool die_with_parent = false;  ///< SIGKILL when the gateway dies
  child_limits limits;
  /// An open `cgroup.procs` (or `tasks`) file: the child writes "0" to it
  /// before exec, so it and everything it starts count against that
  /// cgroup's limits from the first instruction. -1: none.
  int cgroup_procs_fd = -1;
};

/// Starts the child; returns its pid, or -1 with `error` set (exec failures
/// such as a missing program are reported here, not as an exit code).
/// The passed descriptors are dup'ed into place; the caller closes its
/// copies. All other descriptors are closed in the child.
pid_t spawn_child(const child_spec& spec, std::string& error);

/// Reaps `pid` (a child of this process, already told to end) on a
/// short-lived thread of its own, for a child whose exit is slow and
/// nobody needs to wait for: slirp4netns's exit waits for the kernel to
/// take its tap device down, 15-50 ms, which was on every sandboxed exec's
/// result.
void reap_in_background(pid_t pid);

/// The RLIMIT_NPROC value that allows `more` processes beyond those that
/// exist now (an upper bound: all threads on the system are counted).
uint64_t nproc_limit_for(uint64_t more);

} // namespace nb

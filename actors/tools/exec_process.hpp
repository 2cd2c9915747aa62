// Tools: running one child process for exec. Its own process group, stdin
// from /dev/null, output read while it runs and capped as it is read, a
// hard time limit that kills the whole group.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actors/tools/child_spawn.hpp"

namespace nb {

/// How to run the child.
struct process_options {
  std::string program;           ///< absolute path
  std::vector<std::string> argv; ///< argv[0] included
  std::vector<std::string> env;  ///< "KEY=value", the whole environment
  std::string cwd;
  int timeout_s = 0;             ///< 0 = no limit
  size_t capture_limit = 10000;  ///< bytes kept at each end of each stream
  /// How long to keep reading after the child exits while something else
  /// (a background grandchild) still holds the output pipes.
  std::chrono::milliseconds drain{250};
  child_limits limits;           ///< rlimits set inside the child
  /// Polled between reads (at least every 50 ms): true kills the whole
  /// process group at once (/stop). Null: never.
  std::function<bool()> cancelled;
  int cgroup_procs_fd = -1;     ///< see child_spec
  std::vector<int> inherit_fds; ///< see child_spec
  /// Called once the child runs, before its output is read (the sandbox
  /// wires its network here); a non-empty error kills the group and ends
  /// the run with that error. Null: nothing to do.
  std::function<std::string(pid_t)> started;
};

/// One output stream: its first and last capture_limit bytes.
struct captured_stream {
  std::string head;
  std::string tail;   ///< the last bytes after head, at most capture_limit
  uint64_t total = 0; ///< bytes the child wrote
  /// Returns whether bytes between head and tail were dropped.
  bool clipped() const {
    return total > head.size() + tail.size();
  }
};

/// How the child ended.
struct process_result {
  std::string error;      ///< could not start: the reason
  bool timed_out = false;
  bool cancelled = false; ///< stopped through process_options::cancelled
  int exit_code = 0;      ///< negative: killed by that signal
  captured_stream out;
  captured_stream err;
};

/// A child started by start_process: its pid and our ends of its pipes
/// (-1 when not opened), or the reason it did not start.
struct started_process {
  std::string error;
  pid_t pid = -1;
  int stdin_fd = -1; ///< a socket (send with MSG_NOSIGNAL); -1 = /dev/null
  int out_fd = -1;   ///< non-blocking
  int err_fd = -1;   ///< non-blocking
};

/// Starts the child of `opts` in a new process group with its output on
/// two pipes and, with `with_stdin`, its stdin on a socket we write to;
/// runs `opts.started`. On failure nothing is left open or running.
started_process start_process(const process_options& opts, bool with_stdin);

/// Returns the exit code waitpid's `status` stands for (negative: the
/// signal that killed it).
int decode_exit_status(int status);

/// Runs the child to completion (or the time limit) and returns what it
/// wrote. The child runs in a new process group; on timeout, or when
/// leftover processes still hold the pipes after the drain, the whole group
/// gets SIGKILL. The child is always reaped.
process_result run_process(const process_options& opts);

/// The second half of run_process for a child `sp` started without stdin:
/// reads its output until it ends (or opts' time limit from now, or a
/// cancel), reaps it and closes sp's descriptors.
process_result wait_process(const started_process& sp,
                            const process_options& opts);

/// Returns exec's text for `r`: stdout, then "STDERR:\n..." when stderr is
/// not blank, then "\nExit code: N"; when longer than `max` bytes, the
/// head and tail halves around "... (N chars truncated) ...". Invalid
/// UTF-8 is replaced.
std::string format_exec_output(const process_result& r, size_t max);

} // namespace nb

// Tools: the process of one exec background session. Started like exec's
// one-shot run (same launch plan, same sandbox), but with a stdin we can
// write to, and never waited for: its owner (the session manager) reads
// what is there, checks for the exit and writes input without blocking.
// Destroying it kills whatever is left of the command.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <sys/types.h>

#include "actors/tools/sandbox/sandboxed_run.hpp"
#include "messages/exec_session.hpp"

namespace nb {

class session_process {
public:
  /// Starts `launch`; null with `error` set when it could not start.
  static std::unique_ptr<session_process> start(const exec_launch& launch,
                                                std::string& error);

  ~session_process();
  session_process(const session_process&) = delete;
  session_process& operator=(const session_process&) = delete;

  /// Reads what waits on stdout (stream 0) and stderr (stream 1) into
  /// `sink`, a bounded amount per call; returns the bytes read.
  size_t
  read_output(const std::function<void(int stream, std::string_view)>& sink);

  /// Whether both output pipes reached end of file.
  bool output_closed() const { return out_fd_ < 0 && err_fd_ < 0; }

  /// Returns whether the process has exited (reaps it, never waits).
  bool check_exit();

  bool exited() const { return reaped_; }

  /// Negative: killed by that signal. Valid once exited().
  int exit_code() const { return exit_code_; }

  /// Queues `chars` for stdin and writes what the pipe takes now; returns
  /// "" or why it cannot (stdin closed).
  std::string write_input(std::string_view chars);

  /// Closes stdin once the queued input is written (EOF for the command).
  void close_input();

  /// Writes more queued input (called on every tick).
  void flush_input();

  /// SIGKILLs the process group (and the sandbox) and reaps the child.
  void kill();

  /// After the exit: ends leftovers that still run in its group or
  /// sandbox (a background child holding the pipes) and closes the pipes.
  /// Only the first call acts: later, the group id may belong to another
  /// process.
  void release();

  pid_t pid() const { return pid_; }

private:
  session_process() = default;
  void close_stdin_now();

  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  bool reaped_ = false;
  bool released_ = false; ///< leftovers killed once, right after the exit
  int exit_code_ = 0;
  std::string pending_input_;
  bool close_after_input_ = false;
  sandbox_launch sandbox_; ///< the sandbox's network and cgroup, if any
};

} // namespace nb

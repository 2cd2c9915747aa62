// Sandbox: one sandbox started ahead of its command. bwrap, its network and
// its pids cgroup are set up exactly as for a cold run of the same launch,
// and what runs inside is a small waiter (/bin/sh) that reads the command
// text from a socket and then execs the very argv the cold path would have
// run: `shell [-l] -c <command>`, stdin /dev/null, the same environment and
// working directory. A warm sandbox runs exactly one command.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "actors/tools/exec_process.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"

namespace nb {

/// What identifies a sandboxed launch, command text aside: bwrap's whole
/// argv as computed from the file system now (so a secret that appeared
/// since is masked and changes it) with what is at each of its paths now
/// (device, inode, change time: a masked file replaced by a rename is no
/// longer masked in a sandbox started before), the shell's argv before the
/// command, the environment, the working directory, the rlimits and the
/// cgroup's process limit. `sandboxed` is sandboxed_options' result for a launch
/// whose last argument is the command.
std::string warm_launch_key(const process_options& sandboxed,
                            const sandbox_request& req);

/// Whether `opts` (not yet sandboxed) can start warm: its argv holds a
/// program and at least the command, its last argument.
bool warm_launch_fits(const process_options& opts);

class warm_sandbox {
public:
  /// Starts the sandbox `req` describes for `opts` (not yet sandboxed; its
  /// last argument, the command, is left out until run). Null with `error`
  /// when it could not start.
  static std::unique_ptr<warm_sandbox>
  start(process_options opts, const sandbox_request& req,
        const sandbox_status& status, std::string& error);

  /// Kills and reaps whatever is left of it (its cgroup, bwrap, the
  /// network helper).
  ~warm_sandbox();
  warm_sandbox(const warm_sandbox&) = delete;
  warm_sandbox& operator=(const warm_sandbox&) = delete;

  /// warm_launch_key of the launch it was started for.
  const std::string& key() const {
    return key_;
  }
  /// bwrap's pid, and slirp4netns's (-1: none).
  pid_t pid() const {
    return sp_.pid;
  }
  pid_t network_pid() const;

  /// Whether it still waits for its command (reaps it when it is gone).
  bool alive();

  /// Sends `command` and runs it to the end as run_process does, with
  /// opts' time limit counted from now, its output caps, drain and cancel;
  /// then kills what is left in its cgroup. nullopt when the sandbox was
  /// gone before it could take the command (run it cold then).
  std::optional<process_result> run(const std::string& command,
                                    const process_options& opts);

  /// Something the owner keeps alive as long as this sandbox lives (the
  /// pool's thread, which bwrap's --die-with-parent is bound to);
  /// released last, after bwrap is reaped.
  void hold(std::shared_ptr<void> keeper) {
    keeper_ = std::move(keeper);
  }

private:
  warm_sandbox() = default;

  std::shared_ptr<void> keeper_; ///< first member: destroyed last
  sandbox_launch launch_;
  started_process sp_;
  int command_fd_ = -1;
  bool reaped_ = false;
  std::string key_;
};

} // namespace nb

// Sandbox: one exec command inside bubblewrap, with its own pids cgroup
// and, for "loopback-denied", its own user-mode network.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actors/tools/exec_process.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"

namespace nb {

/// Where the command runs, what it must not see and what it may reach.
struct sandbox_request {
  std::string workspace;  ///< real path, bound read-write
  std::string cwd;        ///< real path inside the workspace
  std::string config_dir; ///< hidden (config.json, sessions/); "" = none
  std::string config_file;
  std::string network = "loopback-denied"; ///< or "none", "host"
  std::vector<std::string> ro_binds; ///< extra trees shown read-only
  std::vector<std::string> rw_binds; ///< extra trees shown writable
  int64_t max_processes = 256;       ///< the pids cgroup's limit
};

class slirp_network;
class pids_cgroup;

/// A sandboxed command about to start: the options for start_process or
/// run_process (bwrap in front, HOME = the workspace) and what must live as
/// long as the command does: its network helper and its pids cgroup, which
/// kills whatever is left in it when destroyed.
struct sandbox_launch {
  process_options opts;
  std::unique_ptr<slirp_network> net;
  std::unique_ptr<pids_cgroup> cgroup;
  sandbox_launch();
  sandbox_launch(sandbox_launch&&) noexcept;
  sandbox_launch& operator=(sandbox_launch&&) noexcept;
  ~sandbox_launch();
};

/// Whether a "loopback-denied" `req` gets its user-mode network under
/// `status` (false: it runs with none).
bool sandbox_wants_outbound(const sandbox_request& req,
                            const sandbox_status& status);

/// The command line and environment of `opts` in the sandbox `req`
/// describes (bwrap and its arguments in front, HOME = the workspace), the
/// network's descriptors numbered when `outbound`. Reads the file system
/// (what is there to mask) and starts nothing; where the workspace is the
/// config dir it makes sure config.json's saves keep its inode
/// (config_workspace.hpp), which may create the config's save directory.
process_options sandboxed_options(process_options opts,
                                  const sandbox_request& req,
                                  const sandbox_status& status,
                                  bool outbound);

/// Wraps `opts` for the sandbox `req` describes.
sandbox_launch prepare_sandboxed(process_options opts,
                                 const sandbox_request& req,
                                 const sandbox_status& status);

/// Runs `opts` (program, argv, env as for an unsandboxed run) inside the
/// sandbox: bwrap's arguments go in front of the argv, HOME becomes the
/// workspace, and every process the command started is gone when this
/// returns (PID namespace, --die-with-parent, the cgroup).
process_result run_sandboxed(process_options opts, const sandbox_request& req,
                             const sandbox_status& status);

} // namespace nb

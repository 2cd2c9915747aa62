// Sandbox: the warm sandboxes of one tools front. After a sandboxed exec,
// the next sandbox for the same launch is prepared in the background, so
// the next exec only sends its command (a cold sandbox costs tens of
// milliseconds: bwrap's mounts, the network, the cgroup). A pool of OS
// resources, like a connection pool: a small class with a mutex, owned by
// the tools front and shared with its workers through the tool context,
// rather than an actor — taking a sandbox is part of a worker's blocking
// call, and the preparing thread must stay alive as long as any sandbox it
// started does (bwrap's --die-with-parent is bound to that thread).
//
// Bounds: nothing before the first sandboxed exec; at most one sandbox per
// launch and a few in all; each dropped after an idle time; the thread
// exits when nothing is left; all dropped when the pool is closed or
// destroyed.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/tools/exec_process.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"

namespace nb {

class warm_sandbox;
struct warm_pool_core;

class warm_sandbox_pool {
public:
  /// `idle`: how long a prepared sandbox waits for its command before it
  /// is dropped; `most`: how many may wait at once.
  explicit warm_sandbox_pool(
    std::chrono::milliseconds idle = std::chrono::seconds(60),
    size_t most = 4);
  /// Closes the pool (never waits: its thread tears the sandboxes down).
  ~warm_sandbox_pool();
  warm_sandbox_pool(const warm_sandbox_pool&) = delete;
  warm_sandbox_pool& operator=(const warm_sandbox_pool&) = delete;

  /// The sandbox prepared for `key` (warm_launch_key), taken out of the
  /// pool, or null. Prepared sandboxes for the same place (`place`: the
  /// working directory) under another key are stale and are dropped.
  std::unique_ptr<warm_sandbox> take(const std::string& key,
                                     const std::string& place);

  /// Asks for a sandbox like `opts` under `req` to be prepared in the
  /// background (nothing when one waits for that launch already). Returns
  /// at once.
  void prepare(process_options opts, sandbox_request req,
               const sandbox_status& status);

  /// Drops every prepared sandbox and prepares no more (never waits).
  void close();

  /// What it did so far and what waits now (tests, the bench).
  struct figures {
    uint64_t prepared = 0; ///< sandboxes started
    uint64_t taken = 0;    ///< handed to a command
    uint64_t dropped = 0;  ///< stale, idle, evicted, dead or closed
    uint64_t failed = 0;   ///< could not be started
    std::vector<pid_t> waiting; ///< bwrap and slirp4netns pids
    bool thread_running = false;
  };
  figures counters() const;

private:
  std::shared_ptr<warm_pool_core> core_;
};

/// Runs `opts` in the sandbox `req` describes as run_sandboxed does, in a
/// sandbox `pool` prepared when one fits this launch exactly, else cold;
/// then has `pool` prepare the next one. A null `pool` runs cold.
process_result run_sandboxed_warm(process_options opts,
                                  const sandbox_request& req,
                                  const sandbox_status& status,
                                  warm_sandbox_pool* pool);

} // namespace nb

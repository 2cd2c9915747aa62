// The session store on files: the shared front (sharded_front.hpp) over
// detached workers that do the blocking file I/O (session_files.hpp).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/common/meter.hpp"
#include "messages/interfaces.hpp"
#include "actors/store/sharded_front.hpp"
#include "messages/session_admin.hpp"

namespace spdlog {
class logger;
} // namespace spdlog

namespace nb {

/// One worker: a detached actor (its own thread) doing file I/O.
struct store_worker_state {
  store_worker_state() = default;
  std::string dir;
  std::shared_ptr<spdlog::logger> log;
  actor_meter meter;
  static inline const char* name = "store_worker";
};

/// Worker behaviour: answers session_snapshot / ok_atom, or a caf::error
/// (nb::errc::store_failed, the message naming the file and errno text).
store_worker_actor::behavior_type
store_worker_impl(store_worker_actor::stateful_pointer<store_worker_state> self,
                  std::string dir, stats_actor stats);

/// Spawns the store for `sessions_dir` with `workers` (at least 1) shards,
/// each a detached worker while in use (it ends after `idle_limit`). `stats`
/// may be a null handle. The handle is the sessions' view;
/// actor_cast<store_admin_actor> reaches the WebUI's messages.
store_actor
spawn_store(caf::actor_system& sys, const std::string& sessions_dir,
            int workers, stats_actor stats,
            std::chrono::milliseconds idle_limit = std::chrono::seconds(60));

} // namespace nb

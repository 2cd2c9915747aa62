// The front both session stores share (the files and PostgreSQL): it hands
// each request to one of its detached workers by the request's key, so one
// key's requests run in arrival order while different keys proceed in
// parallel; listings go to the first shard. A worker (a thread, and for
// PostgreSQL a connection) starts with the first request of its shard and
// ends after `idle_limit` without one; requests arriving while it ends wait
// in the front for its last answer, so order per key holds. The workers
// exit with the front.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "messages/interfaces.hpp"
#include "messages/session_admin.hpp"

namespace nb {

/// Asks a worker to end once everything before it is answered.
using store_retire_atom = caf::atom_constant<caf::atom("stretire")>;
/// The front's own timer: end the workers idle too long.
using store_idle_atom = caf::atom_constant<caf::atom("stidle")>;

/// A worker: the stores' interface plus the retire request.
using store_worker_actor = store_admin_actor::extend<
  caf::replies_to<store_retire_atom>::with<caf::ok_atom>>;

/// The front: the stores' interface plus its timer.
using sharded_front_actor =
  store_admin_actor::extend<caf::reacts_to<store_idle_atom>>;

struct sharded_front_state {
  sharded_front_state() = default;

  struct shard {
    bool retiring = false;   ///< asked to end; `held` waits for it
    int64_t last_use_ms = 0; ///< steady clock
    std::vector<std::function<void(const store_worker_actor&)>> held;
  };

  std::vector<shard> shards;
  /// Each shard's running worker (null: none). Shared with the exit hook,
  /// which runs after the state is gone.
  std::shared_ptr<std::vector<store_worker_actor>> workers;
  std::function<store_worker_actor()> spawn_worker;
  std::chrono::milliseconds idle_limit{60000};
  bool ticking = false;
  actor_meter meter;
  static inline const char* name = "store";
};

/// The front's behaviour over `count` (at least 1) shards.
sharded_front_actor::behavior_type sharded_front_impl(
  sharded_front_actor::stateful_pointer<sharded_front_state> self, int count,
  std::function<store_worker_actor()> spawn_worker,
  std::chrono::milliseconds idle_limit, stats_actor stats);

/// Spawns the front; `spawn_worker(sys)` makes one detached worker when a
/// shard needs it. The handle is the sessions' view; actor_cast
/// <store_admin_actor> reaches the WebUI's messages.
template <class SpawnWorker>
store_actor spawn_sharded_front(
  caf::actor_system& sys, int count, stats_actor stats,
  SpawnWorker spawn_worker,
  std::chrono::milliseconds idle_limit = std::chrono::seconds(60)) {
  auto front = sys.spawn(sharded_front_impl, std::max(count, 1),
                         std::function<store_worker_actor()>{
                           [&sys, spawn_worker] { return spawn_worker(sys); }},
                         idle_limit, std::move(stats));
  return caf::actor_cast<store_actor>(front);
}

} // namespace nb

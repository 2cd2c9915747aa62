// The front both session stores share (the files and PostgreSQL): it owns
// detached workers and hands each request to one of them by its key, so one
// key's requests run in arrival order while different keys proceed in
// parallel. Listings go to the first worker. The workers exit with it.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/common/meter.hpp"
#include "messages/interfaces.hpp"
#include "messages/session_admin.hpp"

namespace nb {

struct sharded_front_state {
  sharded_front_state() = default;
  std::vector<store_admin_actor> workers;
  actor_meter meter;
  static inline const char* name = "store";
};

/// The front's behaviour over `workers` (at least one).
store_admin_actor::behavior_type sharded_front_impl(
  store_admin_actor::stateful_pointer<sharded_front_state> self,
  std::vector<store_admin_actor> workers, stats_actor stats);

/// Spawns `count` (at least 1) detached workers with `spawn_worker(sys)` and
/// the front over them. The handle is the sessions' view; actor_cast
/// <store_admin_actor> reaches the WebUI's messages.
template <class SpawnWorker>
store_actor spawn_sharded_front(caf::actor_system& sys, int count,
                                stats_actor stats, SpawnWorker spawn_worker) {
  std::vector<store_admin_actor> workers;
  for (int i = 0; i < std::max(count, 1); ++i)
    workers.push_back(spawn_worker(sys));
  return sys.spawn(sharded_front_impl, std::move(workers), std::move(stats));
}

} // namespace nb

// One owner for the schedules: cron and the heartbeat run only in the gateway
// that holds the "schedules" lease in the session store (a flock'd file next
// to the sessions, or a row in nb_leases). A second gateway on the same store
// stays on standby, says so in its log and in /stats, and takes over once the
// owner's lease lapses (it died, or lost the store for longer than the TTL).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include <caf/actor_clock.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "messages/lease.hpp"
#include "config/settings.hpp"
#include "messages/control.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// The lease's name in the store.
inline constexpr const char* schedules_lease = "schedules";

struct schedules_config {
  std::string owner;      ///< this gateway's name in the lease
  int64_t ttl_ms = 30000; ///< renewed every ttl/3; lapses after ttl
};

/// Who the schedules talk to.
struct schedules_links {
  router_actor router; ///< where cron jobs and heartbeat turns enter
  session_services svc;
  evaluator_actor evaluator;
  lease_actor leases;
  inbox_actor inbox; ///< cron journals its turns here before recording runs
};

/// `tick_atom` renews (or tries to take) the lease; `session_services` hands
/// restarted services on to the heartbeat; `cron_owner_atom` names an
/// agent's cron actor (for the WebUI).
using schedules_actor = cron_owners_actor::extend<
  caf::reacts_to<caf::tick_atom>, caf::reacts_to<session_services>>;

struct schedules_state {
  schedules_state() = default;
  static inline const char* name = "schedules";
  settings cfg;
  schedules_config lease;
  schedules_links links;
  bool running = false;        ///< cron (and the heartbeat) are up here
  /// The last renewal (the actor's clock).
  caf::actor_clock::time_point renewed_at;
  std::string last_holder;     ///< whom standby was last reported for
  /// By agent ("main" and every agents.list id): each agent's jobs live in
  /// its workspace, and its heartbeat reads its own HEARTBEAT.md.
  std::map<std::string, cron_admin_actor> crons;
  std::map<std::string, heartbeat_actor> heartbeats;
  actor_meter meter;
  std::shared_ptr<spdlog::logger> log;
};

using schedules_pointer = schedules_actor::stateful_pointer<schedules_state>;

schedules_actor::behavior_type schedules_impl(schedules_pointer self,
                                              settings cfg,
                                              schedules_config lease,
                                              schedules_links links);

/// This process's default lease owner: "<hostname>:<pid>".
std::string default_lease_owner();

} // namespace nb

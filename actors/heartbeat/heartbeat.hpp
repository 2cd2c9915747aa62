// The heartbeat actor: reads HEARTBEAT.md every interval; with an active
// task it runs a turn in session "heartbeat" (message-tool delivery
// suppressed), asks the evaluator (fail closed) and delivers the answer to
// the most recently active chat only when the gate says so. No active task
// means no model call at all. Detached: it reads the file itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include <caf/actor_clock.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/heartbeat/heartbeat_tasks.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct heartbeat_config {
  std::string workspace; ///< absolute; holds HEARTBEAT.md
  std::chrono::seconds interval{1800};
  size_t keep_recent = 8;
  std::set<std::string> enabled_channels; ///< possible targets
  std::string model; ///< for the evaluator ("" = its default)
  std::chrono::seconds turn_timeout{3600};
  std::chrono::seconds call_timeout{60}; ///< store and evaluator requests
  std::string agent = "main"; ///< whose HEARTBEAT.md and sessions
  std::vector<std::string> other_agents; ///< listed agents besides it
  /// false: the beats come from the cron job "heartbeat" (as in the
  /// original), not from an own timer.
  bool own_timer = true;
};

heartbeat_config make_heartbeat_config(const settings& cfg);

/// Who the heartbeat talks to.
struct heartbeat_links {
  router_actor router;
  store_actor store;
  evaluator_actor evaluator;
  outbound_sink outbox; ///< null: results are logged, not delivered
  stats_actor stats;
};

struct heartbeat_state {
  heartbeat_state() = default;
  static inline const char* name = "heartbeat";
  heartbeat_config cfg;
  heartbeat_links links;
  actor_meter meter;
  std::shared_ptr<spdlog::logger> log;
  // The beat in progress (at most one).
  bool running = false;
  /// When the beat started (the actor's clock), to give up on a lost turn.
  caf::actor_clock::time_point started;
  int64_t beat = 0;
  std::string prompt;
  std::optional<heartbeat_target> target;
  std::vector<caf::typed_response_promise<std::string>> waiting;
};

using heartbeat_pointer = heartbeat_actor::stateful_pointer<heartbeat_state>;

heartbeat_actor::behavior_type heartbeat_impl(heartbeat_pointer self,
                                              heartbeat_config cfg,
                                              heartbeat_links links);

/// Spawns the heartbeat (on the scheduler: HEARTBEAT.md is read on a
/// short-lived thread of its own); the first beat comes one interval later.
heartbeat_actor spawn_heartbeat(caf::actor_system& sys, heartbeat_config cfg,
                                heartbeat_links links);

} // namespace nb

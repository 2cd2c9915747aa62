// The supervisor: spawns the service actors in dependency order (stats,
// store, provider, tools, then the router), monitors them, restarts one that
// crashes and hands the router the fresh handles.
#pragma once

#include <string>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/session/session.hpp"
#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct supervisor_state {
  supervisor_state() = default;
  static inline const char* name = "supervisor";

  settings cfg;
  std::string sessions_dir;
  std::string store_dsn; ///< "" = session files; else PostgreSQL
  session_services svc;
  router_actor router;
  bool with_channels = false;      ///< the gateway runs the chat channels
  channel_manager_actor channels; ///< also svc.outbox while it runs
  int restarts = 0;
  /// Gateway only: the scheduler and the heartbeat with its gate.
  bool background = false;
  cron_actor cron;
  evaluator_actor evaluator;
  heartbeat_actor heartbeat;
};

using supervisor_pointer = supervisor_actor::stateful_pointer<supervisor_state>;

/// `sessions_dir` must exist (see resolve_sessions_dir). `started_at_us` is
/// the process start (steady clock), for uptime in /status. `background`
/// (the gateway) also runs cron, the heartbeat, the evaluator and the chat
/// channels (the channel manager becomes the sessions' outbox). A non-empty
/// `store_dsn` keeps sessions in PostgreSQL instead of `sessions_dir`.
supervisor_actor::behavior_type supervisor_impl(supervisor_pointer self,
                                                settings cfg,
                                                std::string sessions_dir,
                                                int64_t started_at_us,
                                                bool background,
                                                std::string store_dsn);

} // namespace nb

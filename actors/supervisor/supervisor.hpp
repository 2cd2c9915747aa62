// The supervisor: spawns the service actors in dependency order (stats,
// store, provider, tools, then the router), monitors them, restarts one that
// crashes and hands the router the fresh handles.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/session/session.hpp"
#include "messages/lease.hpp"
#include "actors/supervisor/schedules.hpp"
#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "messages/interfaces.hpp"
#include "messages/provider_admin.hpp"

namespace nb {

/// Makes the router that channels, cron and the heartbeat send into when it
/// is not the local one (a cluster gateway's front), from the local router
/// and the services. Called once, while the supervisor starts.
using entry_factory = std::function<router_actor(
  caf::actor_system&, router_actor local, const session_services&)>;

/// How much of the tree a process runs.
struct supervisor_options {
  /// The gateway: also the chat channels, the evaluator, and cron and the
  /// heartbeat while it holds the schedules lease.
  bool background = false;
  std::string store_dsn; ///< "" = session files; else PostgreSQL
  lease_actor leases;    ///< the schedules lease (background)
  schedules_config schedules;
  entry_factory entry;   ///< null: inbound goes to the local router
};

struct supervisor_state {
  supervisor_state() = default;
  static inline const char* name = "supervisor";

  settings cfg;
  std::string sessions_dir;
  std::string store_dsn; ///< "" = session files; else PostgreSQL
  session_services svc;
  router_actor router;
  router_actor entry; ///< where inbound enters (the inbox, router or front)
  inbox_actor inbox;  ///< the gateway's durable inbox (null: none)
  bool with_channels = false;      ///< the gateway runs the chat channels
  channel_manager_actor channels; ///< also svc.outbox while it runs
  int restarts = 0;
  /// Gateway only: the gate, and cron and the heartbeat under the lease.
  bool background = false;
  lease_actor leases;
  schedules_config schedules_cfg;
  evaluator_actor evaluator;
  schedules_actor schedules;
  /// Provider settings saved from the WebUI since the start (see
  /// provider_config); a restarted provider gets them at once.
  std::optional<provider_config> provider_override;
  /// Tools settings the WebUI saved since the start, for a restarted front.
  std::optional<tools_config> tools_override;
  /// Gateway only: the watch on config.json (see config_watch.hpp).
  caf::actor config_watch;
};

using supervisor_pointer
  = supervisor_admin_actor::stateful_pointer<supervisor_state>;

/// `sessions_dir` must exist (see resolve_sessions_dir). `started_at_us` is
/// the process start (steady clock), for uptime in /status. The get_atom
/// answer names the entry router (the front when `opts.entry` made one).
supervisor_admin_actor::behavior_type supervisor_impl(supervisor_pointer self,
                                                settings cfg,
                                                std::string sessions_dir,
                                                int64_t started_at_us,
                                                supervisor_options opts);

} // namespace nb

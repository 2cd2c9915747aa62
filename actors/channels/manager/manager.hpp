// The channel manager: the services' outbox and the channel adapters' inbox.
// Starts the enabled channels, checks who may talk to the agent, and delivers
// outbound messages to the right adapter.
#pragma once

#include <map>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// One configured channel as the manager keeps it.
struct managed_channel {
  channel_actor adapter; ///< null: not running (see status)
  channel_status status; ///< last known, used when the adapter is null
};

struct channel_manager_state {
  channel_manager_state() = default;
  static inline const char* name = "channel_manager";

  settings cfg;
  router_actor router;
  std::map<std::string, managed_channel> channels;
  actor_meter meter;
};

using channel_manager_pointer
  = channel_manager_actor::stateful_pointer<channel_manager_state>;

channel_manager_actor::behavior_type
channel_manager_impl(channel_manager_pointer self, settings cfg,
                     router_actor router, stats_actor stats);

/// Spawns the manager; it starts every enabled channel at once.
channel_manager_actor spawn_channel_manager(caf::actor_system& sys,
                                            const settings& cfg,
                                            router_actor router,
                                            stats_actor stats);

} // namespace nb

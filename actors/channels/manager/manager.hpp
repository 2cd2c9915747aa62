// The channel manager: the services' outbox and the channel adapters' inbox.
// Starts the enabled channels, checks who may talk to the agent (allowFrom,
// pairing, group mentions) and delivers outbound messages in order per chat,
// split to the platform's limit, with stream deltas coalesced and failed
// sends retried (1/2/4 s) without duplicates.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/channels/manager/options.hpp"
#include "actors/channels/manager/pairing.hpp"
#include "actors/common/meter.hpp"
#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "messages/channel_admin.hpp"
#include "messages/interfaces.hpp"

namespace nb {

using retry_send_atom = caf::atom_constant<caf::atom("chretry")>;
using restart_channel_atom = caf::atom_constant<caf::atom("chrestart")>;

/// The manager's full interface: the shared one plus its own timers.
/// Others hold it as a channel_manager_actor.
using channel_manager_full = channel_manager_admin_actor::extend<
  caf::reacts_to<retry_send_atom, std::string, int32_t>,
  caf::reacts_to<restart_channel_atom, std::string>>;

/// One configured channel as the manager keeps it.
struct managed_channel {
  channel_actor adapter;  ///< null: not running (see status)
  channel_status status;  ///< last known; used while the adapter is null
  channel_options opts;
  int64_t gave_up = 0;    ///< messages dropped after the last retry
};

/// Outbound messages of one chat, sent one at a time in order.
struct chat_queue {
  std::deque<outbound_msg> items;
  bool in_flight = false; ///< items.front() is being sent
};

struct channel_manager_state {
  channel_manager_state() = default;
  static inline const char* name = "channel_manager";

  settings cfg;
  router_actor router;
  inbox_actor inbox; ///< journals before the router (null: none)
  std::map<std::string, managed_channel> channels;
  /// Adapters stopped for a reconfiguration: started again, with the new
  /// settings, once they are down (a port or a platform session is free).
  std::map<caf::actor_addr, std::string> stopping;
  std::map<std::string, chat_queue> queues; ///< by channel + '\n' + chat
  pairing_book pairing;
  bool pairing_writing = false; ///< a write of pairing.json is under way
  std::optional<std::string> pairing_unsaved; ///< to write after it
  std::mt19937_64 rng{std::random_device{}()};
  actor_meter meter;
};

using channel_manager_pointer
  = channel_manager_full::stateful_pointer<channel_manager_state>;

channel_manager_full::behavior_type
channel_manager_impl(channel_manager_pointer self, settings cfg,
                     router_actor router, stats_actor stats,
                     inbox_actor inbox);

/// Spawns the manager; it starts every enabled channel at once. Admitted
/// inbound messages go to `router`; with an `inbox`, inbox_record requests
/// are answered by it once the message is journaled.
channel_manager_actor spawn_channel_manager(caf::actor_system& sys,
                                            const settings& cfg,
                                            router_actor router,
                                            stats_actor stats,
                                            inbox_actor inbox = {});

// -- the parts, one file each

/// manager.cpp: spawns the adapter for the slot's options and links it.
void start_one(channel_manager_pointer self, const std::string& name);

/// reconfigure.cpp: channels.<name> from `config_json` (see
/// channel_reconfigure_atom); only that channel restarts. "" or the error.
std::string reconfigure_channel(channel_manager_pointer self,
                                const std::string& name,
                                const std::string& config_json, bool dry_run);

/// reconfigure.cpp: the channel types this build has and the keys a new
/// one of each must have: [{type, required: [key]}] (JSON text).
std::string channel_kinds_json();

/// A tools change (channel_tools_atom): a new tools.ssrfWhitelist restarts
/// the running channels that fetch reply links under it.
void retool_channels(channel_manager_pointer self,
                     const std::string& config_json);

/// reconfigure.cpp: a stopped adapter is down: its successor starts.
void on_adapter_down(channel_manager_pointer self, const caf::down_msg& dm);

/// dispatch.cpp: queues `msg` for its chat (filtered, split, coalesced).
void enqueue_outbound(channel_manager_pointer self, outbound_msg msg);
/// dispatch.cpp: attempt number `attempt` of the front of queue `key`.
void send_front(channel_manager_pointer self, const std::string& key,
                int32_t attempt);

/// inbound.cpp: access control, pairing commands, then the router.
void handle_inbound(channel_manager_pointer self, inbound_msg msg);

/// inbound.cpp: the same, answered once the message is in the inbox journal
/// (at once when access control or a /pairing command took it).
caf::result<inbox_receipt> record_inbound(channel_manager_pointer self,
                                          inbound_msg msg);

/// pairing_file.cpp: reads <config-dir>/pairing.json into the state, then
/// runs `then`; the manager handles nothing else until then.
void load_pairing(channel_manager_pointer self, std::function<void()> then);

/// pairing_file.cpp: writes the approvals to <config-dir>/pairing.json.
void save_pairing(channel_manager_pointer self);

} // namespace nb

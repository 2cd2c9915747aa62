// The router: one session actor per session key, spawned on first message,
// forgotten when it goes idle or dies, re-created from disk on the next one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/router/agent_plan.hpp"
#include "actors/session/session.hpp"
#include "messages/cluster.hpp"
#include "messages/control.hpp"
#include "messages/interfaces.hpp"
#include "messages/provider_admin.hpp"
#include "messages/session_admin.hpp"

namespace nb {

struct router_state {
  router_state() = default;
  static inline const char* name = "router";

  struct entry {
    session_actor session;
    int64_t forwarded = 0; ///< inbound messages sent to this session
    bool exited = false;   ///< its exit message (the link) came already
  };

  std::unordered_map<std::string, entry> sessions;
  /// Sessions that died and whose down message came before their exit
  /// message (CAF sends both, in no promised order): that exit is theirs,
  /// not the supervisor stopping the router.
  std::unordered_set<caf::actor_addr> departed;
  /// A flush arrived (the gateway is stopping): no new session starts.
  bool draining = false;
  /// Gives retired sessions' memory back (spawned on the first retirement).
  caf::actor trimmer;
  session_config cfg; ///< main's
  session_services svc;
  agent_plan plan;    ///< the other agents (empty: main only)
  /// Each listed agent's tools, sandboxed to its workspace; spawned with
  /// the agent's first session and monitored (a crashed one is respawned).
  std::map<std::string, tools_actor> agent_tools;
  /// Tools settings saved in the WebUI since the start: handed to each
  /// agent's tools front, also to one spawned later (first in its mailbox).
  std::optional<tools_config> tools_override;
  /// Each agent's workspace actor (main's too), spawned with its first
  /// session; a crashed one is respawned for the next session.
  std::map<std::string, workspace_admin_actor> agent_files;
  actor_meter meter;
};

using router_pointer = router_actor::stateful_pointer<router_state>;

router_actor::behavior_type router_impl(router_pointer self, session_config cfg,
                                        session_services svc,
                                        agent_plan plan);

/// The release-capable router with the WebUI's sessions view: it lists
/// and reads through the store, and hands a change to the live session of
/// that key (router_admin.cpp). tools_config: new tools settings for every
/// listed agent's tools front (the supervisor sends it; no answer).
using session_router_actor = member_router_admin_actor::extend_with<
  sessions_actor>::extend<caf::reacts_to<tools_config>>;

using member_router_pointer
  = session_router_actor::stateful_pointer<router_state>;

/// The same router, plus session_release: used where the cluster may move
/// keys away (agent nodes, and a gateway node's own router);
/// workspace_owner_atom: an agent's workspace actor for the WebUI; and the
/// sessions view.
session_router_actor::behavior_type
member_router_impl(member_router_pointer self, session_config cfg,
                   session_services svc, agent_plan plan);

} // namespace nb

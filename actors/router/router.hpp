// The router: one session actor per session key, spawned on first message,
// forgotten when it goes idle or dies, re-created from disk on the next one.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/session/session.hpp"
#include "messages/cluster.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct router_state {
  router_state() = default;
  static inline const char* name = "router";

  struct entry {
    session_actor session;
    int64_t forwarded = 0; ///< inbound messages sent to this session
  };

  std::unordered_map<std::string, entry> sessions;
  /// A flush arrived (the gateway is stopping): no new session starts.
  bool draining = false;
  /// Gives retired sessions' memory back (spawned on the first retirement).
  caf::actor trimmer;
  session_config cfg;
  session_services svc;
  actor_meter meter;
};

using router_pointer = router_actor::stateful_pointer<router_state>;

router_actor::behavior_type router_impl(router_pointer self, session_config cfg,
                                        session_services svc);

using member_router_pointer
  = member_router_actor::stateful_pointer<router_state>;

/// The same router, plus session_release: used where the cluster may move
/// keys away (agent nodes, and a gateway node's own router).
member_router_actor::behavior_type
member_router_impl(member_router_pointer self, session_config cfg,
                   session_services svc);

} // namespace nb

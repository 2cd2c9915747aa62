// An agent or tools node's own actor: joins the gateway's cluster front,
// hands it this node's router (agent) or tools front (tools), applies the
// services the gateway shares (the session store, a tools node, the outbox),
// and rejoins after losing the gateway.
#pragma once

#include <cstdint>
#include <string>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/cluster/connector.hpp"
#include "actors/common/meter.hpp"
#include "actors/router/agent_plan.hpp"
#include "actors/session/session.hpp"
#include "config/cluster_config.hpp"
#include "config/settings.hpp"
#include "messages/cluster.hpp"

namespace nb {

struct node_state {
  node_state() = default;
  static inline const char* name = "cluster_node";

  std::string id;
  std::string role;    ///< agent | tools
  std::string address; ///< where this node listens
  std::chrono::seconds timeout{10};
  session_config scfg;
  agent_plan plan; ///< the listed agents' sessions run here too
  session_services svc;    ///< provider, stats and local tools; store later
  tools_actor local_tools; ///< used while no tools node is connected
  member_router_actor router; ///< agents: serves the keys sent here
  connector_actor connector;
  cluster_front_actor front;
  bool joining = false;
  int failures = 0;
  int64_t started_us = 0;
  actor_meter meter;
};

using node_pointer = node_actor::stateful_pointer<node_state>;

/// `svc` holds this node's own provider, tools and stats. Send it
/// connect_atom once to start joining.
node_actor::behavior_type node_impl(node_pointer self, std::string id,
                                    std::string role, std::string address,
                                    settings cfg, cluster_settings ccfg,
                                    session_services svc,
                                    connector_actor connector);

} // namespace nb

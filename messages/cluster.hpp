// Cluster membership and handoff between nodes (nanobot node --role ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/interfaces.hpp"
#include "messages/session.hpp"

namespace nb {

using node_status_atom = caf::atom_constant<caf::atom("nodestat")>;
using connect_atom = caf::atom_constant<caf::atom("nbconnect")>;
using cluster_status_atom = caf::atom_constant<caf::atom("clstatus")>;

/// The cluster moved `key` to another node: forget its session actor (its
/// cached transcript would go stale). Sent only when no turn is running.
struct session_release {
  std::string key;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_release& x) {
  return f(caf::meta::type_name("session_release"), x.key);
}

/// An agent node's router: a router that also lets go of a session when
/// the gateway moves its key elsewhere.
using member_router_actor
  = router_actor::extend<caf::reacts_to<session_release>>;

/// What the gateway tells a node on joining, and again whenever a service
/// it relies on changes (a tools node came or went).
struct node_welcome {
  std::string gateway_id;
  store_actor store;    ///< the shared session store
  tools_actor tools;    ///< a tools node's front (null: use local tools)
  outbound_sink outbox; ///< replies without a reply_to
  inbox_settle_sink inbox; ///< the gateway's inbox: sessions settle there
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_welcome& x) {
  return f(caf::meta::type_name("node_welcome"), x.gateway_id, x.store,
           x.tools, x.outbox, x.inbox);
}

/// One node's figures for the gateway's /stats and /metrics.
struct node_status {
  std::string node_id;
  std::string role;    ///< gateway | agent | tools
  std::string address; ///< host:port it listens on
  bool up = true;
  int64_t rss_bytes = 0;
  int64_t actors = 0;   ///< running actors in its actor system
  int64_t sessions = 0; ///< live session actors (agent nodes)
  int64_t mailbox = 0;  ///< messages waiting in its node actor's mailbox
  int64_t uptime_s = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_status& x) {
  return f(caf::meta::type_name("node_status"), x.node_id, x.role, x.address,
           x.up, x.rss_bytes, x.actors, x.sessions, x.mailbox, x.uptime_s);
}

/// A non-gateway node's own actor: takes service updates, reports figures,
/// and (`connect_atom`) (re)joins the gateway; the first connect_atom may
/// carry the address it was published on (a port the OS picked).
using node_actor
  = caf::typed_actor<caf::reacts_to<node_welcome>, caf::reacts_to<connect_atom>,
                     caf::reacts_to<connect_atom, std::string>,
                     caf::replies_to<node_status_atom>::with<node_status>>;

/// A node introduces itself. Agents bring their router, tools nodes their
/// tools front; the gateway monitors `node` to notice when it goes away.
struct node_join {
  std::string node_id;
  std::string role;
  std::string address;
  node_actor node;
  member_router_actor router; ///< agent nodes
  tools_actor tools;   ///< tools nodes
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_join& x) {
  return f(caf::meta::type_name("node_join"), x.node_id, x.role, x.address,
           x.node, x.router, x.tools);
}

/// The node applied the welcome: the gateway may now route to it.
struct node_ready {
  std::string node_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_ready& x) {
  return f(caf::meta::type_name("node_ready"), x.node_id);
}

/// A relay saw the final reply of message `seq` of session `key`.
struct relay_done {
  std::string key;
  int64_t seq = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, relay_done& x) {
  return f(caf::meta::type_name("relay_done"), x.key, x.seq);
}

/// The gateway's cluster front: a router (channels use it as one) that
/// shards session keys over agent nodes, and the membership registry nodes
/// join through. Published on cluster.listen.
using cluster_front_actor = router_actor::extend<
  caf::replies_to<node_join>::with<node_welcome>, caf::reacts_to<node_ready>,
  caf::reacts_to<relay_done>,
  caf::replies_to<cluster_status_atom>::with<std::vector<node_status>>>;

} // namespace nb

// The gateway node's cluster front: the router the channels talk to. It
// places each session key on an agent node by consistent hashing, keeps every
// message until its final reply has come back (through a relay), holds a
// moving key's messages and delivers them in order, and re-homes the keys of
// a node that died. Nodes join it; it is published on cluster.listen.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/cluster/hash_ring.hpp"
#include "actors/common/meter.hpp"
#include "config/cluster_config.hpp"
#include "messages/cluster.hpp"

namespace nb {

struct front_state {
  front_state() = default;
  static inline const char* name = "cluster_front";

  struct member {
    node_status info;      ///< id, role, address; `up` false once gone
    node_actor node;
    member_router_actor router; ///< agents
    tools_actor tools;     ///< tools nodes
    bool ready = false;    ///< applied its welcome: routable
  };

  /// A message handed to a node whose final reply has not come back yet.
  struct pending {
    int64_t seq = 0;
    inbound_msg msg; ///< as received, with the caller's reply_to
    caf::actor relay;
  };

  enum class phase : uint8_t {
    normal,
    draining,   ///< moving to another node once its inflight turns end
    recovering, ///< its node died: reading the store to settle inflight
  };

  /// Where a key lives and what is on its way there.
  struct key_state {
    std::string home; ///< node id; "" = the gateway's own router
    bool homed = false;
    std::deque<pending> inflight;
    std::deque<inbound_msg> waiting; ///< not sent yet, in arrival order
    phase ph = phase::normal;
  };

  std::string id;      ///< this gateway's node id
  std::string address; ///< cluster.listen as bound
  cluster_settings cfg;
  session_services svc;  ///< the gateway's store, stats, outbox
  member_router_actor local; ///< serves keys while no agent node is up
  hash_ring ring;
  std::map<std::string, member> members;
  std::unordered_map<std::string, key_state> keys;
  int64_t next_seq = 0;
  int64_t started_us = 0;
  actor_meter meter;
};

using front_pointer = cluster_front_actor::stateful_pointer<front_state>;

/// `local` is the gateway's own router (it serves every key while no agent
/// node is connected); `svc` holds the store agents share and the outbox.
cluster_front_actor::behavior_type
front_impl(front_pointer self, std::string id, cluster_settings cfg,
           session_services svc, member_router_actor local);

// -- placement (front_route.cpp) ----------------------------------------------

/// Sends what `key` has waiting, in order, as far as its phase allows.
void pump(front_pointer self, const std::string& key);

/// A relay saw the final reply of `seq`.
void settle(front_pointer self, const relay_done& done);

// -- failure (front_recovery.cpp) ---------------------------------------------

/// Agent node `id` is gone: its keys move, their inflight turns are settled.
void recover_node(front_pointer self, const std::string& id);

/// Tells the sender of `msg` something on the turn's behalf.
void notify(front_pointer self, const inbound_msg& msg, std::string text,
            bool is_error);

} // namespace nb

// One message's reply path through the gateway: forwards what the turn sends
// back to the original sink (or the outbox) and reports the final reply to the
// front, so the front knows which messages a dead node left unanswered.
#pragma once

#include <string>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "messages/cluster.hpp"

namespace nb {

struct relay_state {
  relay_state() = default;
  static inline const char* name = "reply_relay";
  outbound_sink target; ///< the caller's reply_to (null: the outbox)
  outbound_sink outbox;
  cluster_front_actor front;
  std::string key;
  int64_t seq = 0;
};

outbound_sink::behavior_type
relay_impl(outbound_sink::stateful_pointer<relay_state> self,
           outbound_sink target, outbound_sink outbox,
           cluster_front_actor front, std::string key, int64_t seq);

} // namespace nb

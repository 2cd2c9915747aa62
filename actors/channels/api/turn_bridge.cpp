#include "actors/channels/api/turn_bridge.hpp"

#include <caf/all.hpp>

namespace nb::api {

turn_bridge::turn_bridge(caf::actor_system& sys, router_actor router)
  : self_(sys), router_(std::move(router)) {
  // nop
}

void turn_bridge::send(inbound_msg msg) {
  msg.reply_to = caf::actor_cast<outbound_sink>(self_);
  self_->send(router_, std::move(msg));
}

std::optional<outbound_msg>
turn_bridge::next(std::chrono::milliseconds max_wait) {
  std::optional<outbound_msg> out;
  self_->receive([&](outbound_msg& m) { out = std::move(m); },
                 caf::after(max_wait) >> [] {
                   // nothing yet: the caller checks its deadline
                 });
  return out;
}

} // namespace nb::api

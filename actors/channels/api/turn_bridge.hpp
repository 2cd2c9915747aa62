// One API request's window into the actor world: hands a message to the
// router from the calling (httplib) thread and receives the outbound
// messages the turn sends back.
#pragma once

#include <chrono>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "messages/interfaces.hpp"

namespace nb::api {

/// Lives on one thread for one request. The router's replies reach its
/// scoped actor; when it is gone, late replies are dropped by CAF.
class turn_bridge {
public:
  turn_bridge(caf::actor_system& sys, router_actor router);

  /// Sends `msg` to the router with this bridge as its reply_to.
  void send(inbound_msg msg);

  /// The next outbound message, waiting at most `max_wait`.
  std::optional<outbound_msg> next(std::chrono::milliseconds max_wait);

private:
  caf::scoped_actor self_;
  router_actor router_;
};

} // namespace nb::api

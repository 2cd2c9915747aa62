#include "actors/channels/api/api_turn.hpp"

#include <caf/all.hpp>

#include "actors/common/log.hpp"

namespace nb::api {

namespace {

/// The one place where the API passes a request's message into the actor
/// world: everything before it is HTTP, everything after it is the turn.
void hand_off(outbound_sink::pointer self, const router_actor& router,
              inbound_msg msg) {
  msg.reply_to = caf::actor_cast<outbound_sink>(self);
  self->send(router, std::move(msg));
}

outbound_sink::behavior_type api_turn(outbound_sink::pointer self,
                                      router_actor router, inbound_msg msg,
                                      outbound_callback on_outbound) {
  hand_off(self, router, std::move(msg));
  return {
    [self, on_outbound](outbound_msg& m) {
      try {
        on_outbound(std::move(m));
      } catch (const std::exception& e) {
        // Only posting can fail here (memory); the request then times out.
        log::get("api")->error("[api] cannot pass a reply on: {}", e.what());
        self->quit(caf::sec::runtime_error);
      }
    },
  };
}

} // namespace

outbound_sink start_turn(caf::actor_system& sys, router_actor router,
                         inbound_msg msg, outbound_callback on_outbound) {
  return sys.spawn(api_turn, std::move(router), std::move(msg),
                   std::move(on_outbound));
}

} // namespace nb::api

// A callback on an actor's own clock entry: run_at(self, due, fn) runs `fn`
// in `self` at `due`. It is a request timeout of the actor's own, so the
// clock drops the entry, and holds no reference to the actor, once the
// actor ends, and the actor's behaviour needs no message for it. Used for
// timers armed once per firing instead of CAF's receive timeout (`after`),
// which is armed again after every batch of messages.
#pragma once

#include <utility>

#include <caf/actor_clock.hpp>
#include <caf/behavior.hpp>
#include <caf/error.hpp>
#include <caf/message_id.hpp>

namespace nb {

template <class Self, class Fn>
void run_at(Self* self, caf::actor_clock::time_point due, Fn fn) {
  auto id = self->new_request_id(caf::message_priority::normal).response_id();
  self->add_multiplexed_response_handler(
    id, caf::behavior{[fn = std::move(fn)](caf::error&) { fn(); }});
  self->clock().set_request_timeout(due, self, id);
}

} // namespace nb

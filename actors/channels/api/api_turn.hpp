// One API request's turn on the actor side: a small event-based actor that
// hands the request's message on and passes the turn's outbound messages
// back to the connection that waits for them.
#pragma once

#include <functional>

#include <caf/actor_system.hpp>

#include "messages/interfaces.hpp"

namespace nb::api {

/// Called for each outbound message of the turn, on a scheduler thread: it
/// may only post the message to the connection's io thread, never block.
using outbound_callback = std::function<void(outbound_msg)>;

/// Spawns the request's actor. It hands `msg` on with itself as reply_to
/// (see hand_off in api_turn.cpp) and calls `on_outbound` for every
/// outbound message. It lives until it is sent an exit: the connection
/// sends one when the answer is complete, the client is gone or the server
/// stops. A turn that outlives it goes on and is saved; its late messages
/// are dropped.
outbound_sink start_turn(caf::actor_system& sys, router_actor router,
                         inbound_msg msg, outbound_callback on_outbound);

} // namespace nb::api

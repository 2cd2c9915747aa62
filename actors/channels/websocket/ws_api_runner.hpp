// The WebUI API's runner: the calls the WebSocket server's io thread hands
// to the channel, run in arrival order (a settings save must not overtake
// the one before it), each on a thread of its own that ends with the call
// (blocking_task), so an idle WebUI holds no thread and the scheduler never
// waits on a provider test or a file write.
#pragma once

#include <chrono>
#include <functional>

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "messages/webui_api.hpp"

namespace nb::ws {

/// The blocking work of one call (runs on the call's own thread).
using api_function = std::function<api_reply(const api_call&)>;

/// Answers every call: the function's reply, or 500 naming what went wrong
/// (an exception, or no answer within `limit`: the next call then starts).
using api_runner_actor =
  caf::typed_actor<caf::replies_to<api_call>::with<api_reply>>;

api_runner_actor
spawn_api_runner(caf::actor_system& sys, api_function fn,
                 std::chrono::seconds limit = std::chrono::seconds(300));

} // namespace nb::ws

// Answering one validated chat-completion request: runs the turn through
// the router and writes a chat.completion or an SSE stream of chunks.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <httplib.h>
#include <spdlog/logger.h>

#include "actors/channels/api/wire.hpp"
#include "messages/interfaces.hpp"

namespace nb::api {

/// What every request of one server shares. `stopping` turns waiting
/// requests into 503s and ends open streams, so stop() never waits for a
/// turn.
struct completion_context {
  caf::actor_system& sys;
  router_actor router;
  std::chrono::seconds timeout;
  std::string model; ///< the configured model, echoed when none was sent
  std::shared_ptr<std::atomic<bool>> stopping;
  std::shared_ptr<spdlog::logger> log;
};

/// Runs `req` as a turn in session "api:<chat_id>". Non-streamed: 200 with
/// the answer, 502 when the turn failed (its error text as the message),
/// 504 past the timeout, 503 when the server stops. Streamed: SSE chunks
/// (role, content deltas, stop, [DONE]); a failure after the stream began
/// is an error frame and no [DONE].
void answer_completion(const completion_context& ctx, completion_request req,
                       httplib::Response& res);

} // namespace nb::api

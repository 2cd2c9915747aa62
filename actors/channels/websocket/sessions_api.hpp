// The WebUI's sessions page behind /api/sessions (issue 20, part 3).
// Blocking: runs on the WebSocket server's worker thread, never on an
// actor's; it asks the gateway router (registered as "sessions"), which
// owns the live sessions and reaches the store.
#pragma once

#include <optional>

#include <caf/fwd.hpp>

#include "actors/channels/websocket/ws_server.hpp"

namespace nb::ws {

/// Answers the sessions routes, or nullopt when `call` is not one of them:
///   GET    sessions        {sessions: [{key, agent, channel, chat_id, title,
///                           archived, preview, messages, updated_ms}]},
///                          newest first
///   GET    sessions/<key>  {key, title, archived, messages: [...]} (the
///                          file's message objects, tool calls included)
///   PUT    sessions/<key>  {title} renames ("" clears), {archived: bool}
///   DELETE sessions/<key>  deletes the file and the live conversation
/// The key is the rest of the path (percent-encoded by the page).
std::optional<api_reply> sessions_api(caf::actor_system& sys,
                                      const api_call& call);

} // namespace nb::ws

// Pieces the WebUI's JSON API handlers share (setup, settings, sessions,
// automations, skills):
// answers, the config file's text, the gateway's supervisor. Blocking: for
// the WebSocket server's API worker thread only.
#pragma once

#include <mutex>
#include <string>

#include <caf/fwd.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/websocket/ws_server.hpp"
#include "actors/common/file_text.hpp"
#include "messages/provider_admin.hpp"

namespace nb::ws {

/// `body` with `status`; text that is not UTF-8 (a file, a transcript) is
/// sent with U+FFFD instead of failing the answer.
inline api_reply answer(int status, const nlohmann::json& body) {
  return {status,
          body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

/// {"error": text} with `status`.
inline api_reply problem(int status, const std::string& text) {
  return answer(status, nlohmann::json{{"error", text}});
}

/// Held from reading config.json to writing it back: each WebSocket
/// channel instance has its own API worker thread, and two saves must not
/// interleave (the second would drop the first's change).
std::mutex& config_edit_mutex();

/// The gateway supervisor (registered by name); null in a process without
/// one.
supervisor_admin_actor find_supervisor(caf::actor_system& sys);

/// Hands the saved config text to the supervisor, which swaps the running
/// provider's model choice: "" when it took it, else why not.
std::string apply_provider(caf::actor_system& sys, const std::string& text,
                           const std::string& config_path);

/// Hands the saved config text to the supervisor, which gives the tools
/// fronts (the gateway's and every agent's) their new settings: "" when
/// the gateway's front took them, else why not.
std::string apply_tools(caf::actor_system& sys, const std::string& text,
                        const std::string& config_path);

/// The provider in effect ({ready, problem, provider, model, ...}).
nlohmann::json live_provider_status(caf::actor_system& sys);

} // namespace nb::ws

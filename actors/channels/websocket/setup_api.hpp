// The WebUI's first-run setup behind /api/setup (issue 20, part 1): which
// provider is in effect, the registry to pick from, the provider's model
// list, a one-request test, and saving into config.json with the running
// gateway taking the new provider at once. Blocking: runs on the WebSocket
// server's worker thread, never on an actor's.
#pragma once

#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/channels/websocket/ws_server.hpp"

namespace nb::ws {

/// Answers the setup routes, or nullopt when `call` is not one of them:
///   GET  setup          {ready, problem, provider, model, api_base,
///                        providers: [{name, display, default_base,
///                        needs_base, needs_key, key_set, api_base}]}
///   POST setup/models   {provider, api_base, api_key} -> {models} | {error}
///   POST setup/test     {provider, api_base, api_key, model}
///                       -> {ok, answer, latency_ms} | {ok: false, error}
///   PUT  setup          the same body: saved to `config_path` (0600) and
///                       applied by the gateway's supervisor -> {ok, status}
/// An empty api_key means the key the config (or its environment variable)
/// already has. No answer ever carries a key.
std::optional<api_reply> setup_api(caf::actor_system& sys,
                                   const std::string& config_path,
                                   const api_call& call);

} // namespace nb::ws

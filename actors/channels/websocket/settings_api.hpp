// The WebUI's settings pages behind /api/settings (issue 20, part 2): the
// config as the pages show it (no secret values), and one form at a time
// checked by the loader, saved into config.json and applied: the model at
// once (the provider swaps it), tools and MCP servers at once (the tools
// fronts reload), a channel by restarting only that channel; agents and
// bindings at the next start, which the answer says (restart_keys). Blocking:
// runs on the WebSocket server's API worker thread, never on an actor's.
#pragma once

#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/channels/websocket/ws_server.hpp"
#include "messages/channel.hpp"

namespace nb::ws {

/// Where the settings API reaches the gateway.
struct settings_context {
  std::string config_path;
  std::string own_channel; ///< the channels.<name> serving this API
  channel_manager_actor manager;
};

/// Answers the settings routes, or nullopt when `call` is not one of them:
///   GET    settings                  settings_view + {warnings,
///                                     channel_kinds: [{type, required}]}
///   PUT    settings/model            -> {ok, applied: "now"}
///   PUT    settings/tools            -> {ok, applied: "now", restart_keys}
///   PUT    settings/channels/<name>  -> {ok, applied: "channel restarted"}
///   POST   settings/channels/<name>  a new channel {type, enabled, secrets,
///                                     options, ...} -> {ok, applied:
///                                     "channel started"}
///   PUT    settings/mcp/<name>       -> {ok, applied: "now"}
///   DELETE settings/mcp/<name>
///   POST   settings/mcp/<name>/test  the form, unsaved -> {tools} | {error}
///   PUT    settings/agents           -> {ok, applied: "restart",
///                                         restart_keys: [agents.list, ...]}
/// A refused form answers 400 {error: "config error at <key path>: ..."}.
std::optional<api_reply> settings_api(caf::actor_system& sys,
                                      const settings_context& ctx,
                                      const api_call& call);

} // namespace nb::ws

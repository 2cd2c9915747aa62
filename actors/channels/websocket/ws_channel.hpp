// The WebSocket channel (channels.websocket): browsers and scripts talk to
// the agent over REFERENCE §12.4, and the same port serves the WebUI.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb {

/// The adapter-table factory: spawns the channel on its own thread. A
/// config error or a port in use leaves it running in state "error" with
/// the reason (so `channels status` shows it) rather than failing.
channel_actor make_websocket_channel(caf::actor_system& sys,
                                     const settings& cfg,
                                     const std::string& name,
                                     channel_manager_actor manager);

/// The port it listens on (0 when it is not listening): asked with
/// channel_status; the detail text is "ws://host:port/path".

} // namespace nb

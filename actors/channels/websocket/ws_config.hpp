// channels.websocket keys (REFERENCE §12.4) this gateway uses.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "actors/channels/websocket/ws_server.hpp"
#include "config/settings.hpp"

namespace nb::ws {

struct channel_config {
  server_config server;
  bool streaming = true;
  std::vector<std::string> allow_from{"*"};
  /// Where GET /api/stats reads the figures (the gateway's own port).
  std::string stats_host = "127.0.0.1";
  int stats_port = 18790;
};

/// The WebUI files shipped with the project: $NANOBOT_WEBUI_DIR, else the
/// installed share/nanobot/webui next to the binary, else the source tree.
std::string default_webui_dir();

/// Reads channels.<name>; errors name the key ("channels.websocket.port:
/// expected an integer 0-65535").
std::variant<channel_config, std::string>
parse_channel_config(const settings& cfg, const std::string& name);

} // namespace nb::ws

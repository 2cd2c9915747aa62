// Tools: one MCP server as an actor. Detached (it blocks on the server's
// pipes), it connects on first use, lists the server's tools as tool_specs
// named mcp_<server>_<tool>, runs calls with the server's toolTimeout, and
// restarts the server when it died or stopped answering. Transports:
// stdio and streamable HTTP.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/tools/mcp_stdio.hpp"
#include "actors/tools/mcp_transport.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct mcp_server_state {
  mcp_server_state() = default;
  static inline const char* name = "mcp_server";
  std::string server;
  mcp_server_settings cfg;
  std::vector<std::string> ssrf_whitelist; ///< for HTTP transports
  std::unique_ptr<mcp_transport> conn;
  bool ready = false;
  std::map<std::string, std::string> tool_names; ///< mcp_ name -> server's
  std::vector<tool_spec> specs;
  actor_meter meter;
};

/// The server actor; spawn it with caf::detached.
tools_actor::behavior_type
mcp_server_impl(tools_actor::stateful_pointer<mcp_server_state> self,
                std::string server, mcp_server_settings cfg,
                std::vector<std::string> ssrf_whitelist, stats_actor stats,
                std::string agent);

/// Text for the model from a tools/call result: text blocks joined, other
/// blocks described, structuredContent when there is nothing else.
std::string mcp_result_text(const nlohmann::json& result);

} // namespace nb

// The settings page's MCP "Test": the server started with the settings the
// page has (not saved yet) through the same actor the tools use, its tool
// list asked for, the server stopped again. Blocking: for the API worker.
#pragma once

#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <nlohmann/json.hpp>

#include "config/settings.hpp"

namespace nb::ws {

/// {"tools": [{name, description}]} with the server's own tool names, or
/// {"error": why} (the server's or the transport's words).
nlohmann::json probe_mcp_server(caf::actor_system& sys,
                                const std::string& name,
                                const mcp_server_settings& cfg,
                                const std::vector<std::string>& ssrf_whitelist);

} // namespace nb::ws

// What the tools take from files beside config.json and in the workspace:
// the MCP servers of the enabled Agent Plugins and the names of the
// installed CLI apps (run_cli_app's description). Whoever reads the config
// reads these too — the main thread at the start, the WebUI's worker when
// it saves — because the tools themselves are built on scheduler threads,
// where no file is read.
#pragma once

#include "config/settings.hpp"
#include "messages/provider_admin.hpp"

namespace nb {

/// At the start: each agent's enabled plugins, from its own workspace
/// (main's join tools.mcpServers, an agents.list agent's wait in
/// tools.agent_plugin_servers for for_agent; a configured server of the
/// same name wins, with a warning) and the installed apps are noted in
/// tools.cliApps. Nothing without a config file.
void read_tool_side_files(settings& cfg);

/// For a running gateway: the same files, for the settings `tc` carries,
/// read into the message. A text that does not parse is left to the
/// receiver, which names the error.
void read_tool_side_files(tools_config& tc);

/// In the tools front: what `tc` carries applied to the settings parsed
/// from it.
void apply_tool_side_files(const tools_config& tc, settings& cfg);

} // namespace nb

// Agent Plugins, as the original packages and enables them: a folder
// <workspace>/plugins/<dir>/ with plugin.json (the Agent Plugins v1
// manifest), skills/<name>/SKILL.md and mcp.json (stdio MCP servers).
// Installed is inert: a plugin counts once enabled, which is recorded
// outside the workspace, in <config dir>/plugin-data/<workspace key>/<name>/
// enabled (the package's fingerprint: a changed package is disabled again
// until the user enables it anew). Both programs read and write that
// marker the same way. Blocking file I/O: command line and worker threads.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/settings.hpp"

namespace nb {

inline constexpr const char* agent_plugin_schema =
  "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
inline constexpr const char* agent_plugin_mcp_schema =
  "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";

/// One valid installed plugin.
struct agent_plugin {
  std::string name; ///< its identity (plugin.json "name")
  std::string root; ///< real path of its folder
  std::string description;
  std::string display_name; ///< extensions."dev.nanobot".displayName
  std::string category;     ///< "Plugin" when not given
  std::vector<std::string> permissions;
  std::vector<std::string> skills;      ///< valid skill names
  std::vector<std::string> mcp_servers; ///< valid server names, sorted
  bool enabled = false;
};

/// The plugins under <workspace>/plugins (sorted by folder; two folders
/// claiming one identity: neither), with their state under `config_dir`.
std::vector<agent_plugin> discover_agent_plugins(const std::string& workspace,
                                                 const std::string& config_dir);

/// Enables (records the package's fingerprint) or disables the plugin
/// `name`; returns "" or the reason it could not ("unknown Agent Plugin
/// 'x'").
std::string set_agent_plugin_enabled(const std::string& workspace,
                                     const std::string& config_dir,
                                     const std::string& name, bool enabled);

/// A skill of an enabled plugin: its name and SKILL.md (real path).
struct plugin_skill {
  std::string name;
  std::string file;
};

/// The skills of the enabled plugins, in plugin order.
std::vector<plugin_skill> enabled_plugin_skills(const std::string& workspace,
                                                const std::string& config_dir);

/// The stdio MCP servers of the enabled plugins, named "<plugin>" (one
/// server) or "<plugin>--<server>", with the command and folders resolved
/// and PLUGIN_ROOT / PLUGIN_DATA set.
std::map<std::string, mcp_server_settings>
enabled_plugin_mcp_servers(const std::string& workspace,
                           const std::string& config_dir);

/// The folder below `config_dir` holding plugin `name`'s state for
/// `workspace` (not created).
std::string agent_plugin_data_dir(const std::string& workspace,
                                  const std::string& config_dir,
                                  const std::string& name);

} // namespace nb

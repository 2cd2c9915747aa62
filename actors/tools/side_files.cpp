#include "actors/tools/side_files.hpp"

#include "actors/common/log.hpp"
#include "actors/skills/agent_plugins.hpp"
#include "actors/tools/cli_apps.hpp"
#include "config/load.hpp"

namespace nb {

namespace {

std::vector<std::string> installed_app_names(const settings& cfg) {
  std::vector<std::string> names;
  for (auto& app : installed_cli_apps(cfg.config_dir()))
    names.push_back(app.name);
  return names;
}

void warn_shadowed(const std::vector<std::string>& shadowed) {
  std::string names;
  for (auto& n : shadowed)
    names += (names.empty() ? "" : ", ") + n;
  if (!names.empty())
    log::get("tools")->warn("Configured MCP servers override Agent Plugins: {}",
                            names);
}

} // namespace

void read_tool_side_files(settings& cfg) {
  if (cfg.config_path.empty())
    return;
  warn_shadowed(merge_mcp_servers(
    cfg.tools.mcp_servers,
    enabled_plugin_mcp_servers(cfg.workspace_path(), cfg.config_dir())));
  cfg.tools.cli_apps.installed = installed_app_names(cfg);
}

void read_tool_side_files(tools_config& tc) {
  auto parsed = parse_settings(tc.config_json, tc.config_path);
  auto* loaded = std::get_if<loaded_settings>(&parsed);
  if (!loaded || tc.config_path.empty())
    return;
  const auto& cfg = loaded->value;
  tc.plugin_servers.clear();
  for (auto& [name, s] :
       enabled_plugin_mcp_servers(cfg.workspace_path(), cfg.config_dir()))
    tc.plugin_servers.push_back({name, s.command, s.args, s.env, s.cwd});
  tc.cli_apps_installed = installed_app_names(cfg);
}

void apply_tool_side_files(const tools_config& tc, settings& cfg) {
  std::map<std::string, mcp_server_settings> plugins;
  for (auto& p : tc.plugin_servers) {
    mcp_server_settings s;
    s.type = "stdio";
    s.command = p.command;
    s.args = p.args;
    s.env = p.env;
    s.cwd = p.cwd;
    plugins.emplace(p.name, std::move(s));
  }
  warn_shadowed(merge_mcp_servers(cfg.tools.mcp_servers, std::move(plugins)));
  cfg.tools.cli_apps.installed = tc.cli_apps_installed;
}

} // namespace nb

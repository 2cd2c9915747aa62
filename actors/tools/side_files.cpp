#include "actors/tools/side_files.hpp"

#include <algorithm>

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

void warn_shadowed(const std::string& agent,
                   const std::vector<std::string>& shadowed) {
  std::string names;
  for (auto& n : shadowed)
    names += (names.empty() ? "" : ", ") + n;
  if (!names.empty())
    log::get("tools")->warn("Configured MCP servers override Agent Plugins{}: "
                            "{}",
                            agent == main_agent ? "" : " of agent " + agent,
                            names);
}

using server_map = std::map<std::string, mcp_server_settings>;

/// Each agent's enabled plugins, from its own workspace: main's first.
std::vector<std::pair<std::string, server_map>>
plugin_servers_by_agent(const settings& cfg) {
  std::vector<std::pair<std::string, server_map>> out;
  for (auto& id : cfg.agent_ids())
    out.emplace_back(id, enabled_plugin_mcp_servers(
                           cfg.for_agent(id).workspace_path(),
                           cfg.config_dir()));
  return out;
}

/// Puts each agent's plugin servers where for_agent finds them: main's
/// into tools.mcpServers (noted), the others' beside it.
void place_plugin_servers(
  settings& cfg, std::vector<std::pair<std::string, server_map>> by_agent) {
  cfg.tools.main_plugin_servers.clear();
  cfg.tools.agent_plugin_servers.clear();
  for (auto& [agent, servers] : by_agent) {
    if (agent != main_agent) {
      std::vector<std::string> shadowed;
      for (auto& [name, s] : servers)
        if (cfg.tools.mcp_servers.count(name)
            && std::find(cfg.tools.main_plugin_servers.begin(),
                         cfg.tools.main_plugin_servers.end(), name)
                 == cfg.tools.main_plugin_servers.end())
          shadowed.push_back(name);
      warn_shadowed(agent, shadowed);
      cfg.tools.agent_plugin_servers[agent] = std::move(servers);
      continue;
    }
    for (auto& [name, s] : servers)
      if (!cfg.tools.mcp_servers.count(name))
        cfg.tools.main_plugin_servers.push_back(name);
    warn_shadowed(agent, merge_mcp_servers(cfg.tools.mcp_servers,
                                           std::move(servers)));
  }
}

} // namespace

void read_tool_side_files(settings& cfg) {
  if (cfg.config_path.empty())
    return;
  place_plugin_servers(cfg, plugin_servers_by_agent(cfg));
  cfg.tools.cli_apps.installed = installed_app_names(cfg);
}

void read_tool_side_files(tools_config& tc) {
  auto parsed = parse_settings(tc.config_json, tc.config_path);
  auto* loaded = std::get_if<loaded_settings>(&parsed);
  if (!loaded || tc.config_path.empty())
    return;
  const auto& cfg = loaded->value;
  tc.plugin_servers.clear();
  for (auto& [agent, servers] : plugin_servers_by_agent(cfg))
    for (auto& [name, s] : servers)
      tc.plugin_servers.push_back(
        {name, s.command, s.args, s.env, s.cwd, agent});
  tc.cli_apps_installed = installed_app_names(cfg);
}

void apply_tool_side_files(const tools_config& tc, settings& cfg) {
  std::vector<std::pair<std::string, server_map>> by_agent;
  for (auto& id : cfg.agent_ids())
    by_agent.emplace_back(id, server_map{});
  for (auto& p : tc.plugin_servers) {
    mcp_server_settings s;
    s.type = "stdio";
    s.command = p.command;
    s.args = p.args;
    s.env = p.env;
    s.cwd = p.cwd;
    for (auto& [agent, servers] : by_agent)
      if (agent == p.agent)
        servers.emplace(p.name, std::move(s));
  }
  place_plugin_servers(cfg, std::move(by_agent));
  cfg.tools.cli_apps.installed = tc.cli_apps_installed;
}

} // namespace nb

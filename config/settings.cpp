// Derived paths of the typed settings: the workspace and the instance dir.
#include "config/settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace nb {

namespace {

namespace fs = std::filesystem;

/// Expands a leading "~" or "~/" with $HOME ("~user" is left alone: nanobot
/// users never write it and resolving it needs the passwd database).
std::string expand_home(const std::string& path) {
  if (path.empty() || path[0] != '~')
    return path;
  if (path.size() > 1 && path[1] != '/')
    return path;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0')
    return path;
  return std::string{home} + path.substr(1);
}

/// Makes `path` absolute and normal without throwing (a vanished cwd leaves
/// it relative rather than killing the caller).
std::string absolute_normal(const std::string& path) {
  std::error_code ec;
  auto abs = fs::absolute(fs::path{path}, ec);
  if (ec)
    return fs::path{path}.lexically_normal().string();
  auto out = abs.lexically_normal().string();
  // "/a/b/" normalises to "/a/b/"; callers join paths, so drop the slash.
  if (out.size() > 1 && out.back() == '/')
    out.pop_back();
  return out;
}

} // namespace

std::chrono::seconds settings::model_request_timeout(bool stream) const {
  auto per_try = stream ? std::max({timeouts.llm_timeout_s,
                                    2 * timeouts.stream_idle_timeout_s, 300})
                        : std::max(timeouts.llm_timeout_s, 60);
  return std::chrono::seconds(4 * per_try + 60);
}

std::string settings::workspace_path() const {
  return absolute_normal(expand_home(agent.workspace));
}

std::string settings::config_dir() const {
  auto file = absolute_normal(expand_home(config_path));
  return fs::path{file}.parent_path().string();
}

const agent_profile* settings::find_agent(const std::string& id) const {
  for (const auto& a : agents)
    if (a.id == id)
      return &a;
  return nullptr;
}

settings settings::for_agent(const std::string& id) const {
  settings out = *this;
  const auto* a = find_agent(id);
  if (a == nullptr)
    return out;
  out.agent = a->agent;
  out.agent_id = a->id;
  out.tools.allow = a->tools_allow;
  out.tools.deny = a->tools_deny;
  if (a->heartbeat_set)
    out.gateway.heartbeat = a->heartbeat;
  // The plugins of the agent's own workspace, not main's.
  auto servers = tools.mcp_servers;
  for (const auto& name : tools.main_plugin_servers)
    servers.erase(name);
  if (auto own = tools.agent_plugin_servers.find(id);
      own != tools.agent_plugin_servers.end())
    merge_mcp_servers(servers, own->second);
  out.tools.main_plugin_servers.clear();
  if (a->mcp_servers_set) {
    out.tools.mcp_servers.clear();
    for (const auto& name : a->mcp_servers)
      if (auto i = servers.find(name); i != servers.end())
        out.tools.mcp_servers.insert(*i);
  } else {
    out.tools.mcp_servers = std::move(servers);
  }
  return out;
}

std::vector<std::string> settings::agent_ids() const {
  std::vector<std::string> out{main_agent};
  for (const auto& a : agents)
    out.push_back(a.id);
  return out;
}

std::vector<std::string>
merge_mcp_servers(std::map<std::string, mcp_server_settings>& configured,
                  std::map<std::string, mcp_server_settings> extra) {
  std::vector<std::string> shadowed;
  for (auto& [name, s] : extra) {
    if (configured.count(name))
      shadowed.push_back(name);
    else
      configured.emplace(name, std::move(s));
  }
  return shadowed;
}

bool tool_permitted(const std::string& name,
                    const std::vector<std::string>& allow,
                    const std::vector<std::string>& deny) {
  auto matches = [&](const std::string& pattern) {
    if (!pattern.empty() && pattern.back() == '*')
      return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1)
             == 0;
    return name == pattern;
  };
  if (std::any_of(deny.begin(), deny.end(), matches))
    return false;
  return allow.empty() || std::any_of(allow.begin(), allow.end(), matches);
}

} // namespace nb

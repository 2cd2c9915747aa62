// Agent Plugins' MCP servers: each package's mcp.json read and checked as
// the original checks it, and the enabled packages' servers merged into the
// configured ones.
#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "actors/common/log.hpp"
#include "actors/skills/agent_plugin_parts.hpp"
#include "actors/skills/agent_plugins.hpp"

namespace nb {

namespace plugin_parts {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string expand_plugin_vars(std::string v, const std::string& root,
                               const std::string& data) {
  const std::pair<std::string, const std::string*> vars[] = {
    {"${PLUGIN_ROOT}", &root}, {"${PLUGIN_DATA}", &data}};
  for (auto& [key, val] : vars)
    for (size_t at = 0; (at = v.find(key, at)) != std::string::npos;
         at += val->size())
      v.replace(at, key.size(), *val);
  return v;
}

// One server of mcp.json, checked as the original checks it.
std::optional<mcp_server_settings>
plugin_server(const json& raw, const fs::path& root, const fs::path& data) {
  static const std::set<std::string> fields{"type", "command", "args", "env",
                                            "cwd"};
  if (!raw.is_object() || raw.value("type", json()) != json("stdio"))
    return std::nullopt;
  for (auto& [k, v] : raw.items())
    if (!fields.count(k))
      return std::nullopt;
  mcp_server_settings s;
  s.type = "stdio";
  auto command = raw.value("command", json(""));
  if (!command.is_string() || command.get<std::string>().empty())
    return std::nullopt;
  auto cmd = command.get<std::string>();
  if (cmd.rfind("./", 0) == 0) {
    auto exe = contained(root / cmd.substr(2), root, false);
    if (!exe)
      return std::nullopt;
    s.command = exe->string();
  } else if (cmd.find_first_of(" \t\r\n\f\v/\\") == std::string::npos) {
    s.command = cmd;
  } else {
    return std::nullopt;
  }
  auto args = raw.value("args", json::array());
  auto env = raw.value("env", json::object());
  if (!args.is_array() || !env.is_object())
    return std::nullopt;
  for (auto& a : args) {
    if (!a.is_string())
      return std::nullopt;
    s.args.push_back(
      expand_plugin_vars(a.get<std::string>(), root.string(), data.string()));
  }
  for (auto& [k, v] : env.items()) {
    if (!v.is_string() || k == "PLUGIN_ROOT" || k == "PLUGIN_DATA")
      return std::nullopt;
    s.env[k] =
      expand_plugin_vars(v.get<std::string>(), root.string(), data.string());
  }
  s.env["PYTHONDONTWRITEBYTECODE"] = "1";
  s.env["PLUGIN_ROOT"] = root.string();
  s.env["PLUGIN_DATA"] = data.string();
  if (!raw.contains("cwd") || raw["cwd"].is_null()) {
    s.cwd = root.string();
  } else if (!raw["cwd"].is_string()) {
    return std::nullopt;
  } else {
    auto cwd = raw["cwd"].get<std::string>();
    std::optional<fs::path> dir;
    if (cwd.rfind("./", 0) == 0)
      dir = contained(root / cwd.substr(2), root, true);
    const std::pair<std::string, fs::path> places[] = {
      {"${PLUGIN_ROOT}", root}, {"${PLUGIN_DATA}", data}};
    for (auto& [key, base] : places) {
      if (cwd != key && cwd.rfind(key + "/", 0) != 0)
        continue;
      auto rel = cwd.substr(key.size());
      while (!rel.empty() && rel[0] == '/')
        rel.erase(0, 1);
      auto candidate = (base / rel).lexically_normal();
      if (!path_is_within(candidate, base))
        return std::nullopt;
      if (base == data)
        ensure_private_dir(candidate);
      dir = contained(candidate, base, true);
    }
    if (!dir)
      return std::nullopt;
    s.cwd = dir->string();
  }
  return s;
}

} // namespace

std::map<std::string, mcp_server_settings>
plugin_servers(const std::string& workspace, const std::string& config_dir,
               const agent_plugin& p) {
  std::map<std::string, mcp_server_settings> out;
  fs::path root = p.root;
  auto m = read_plugin_object(root / "mcp.json", root);
  if (!m.is_object())
    return out;
  if (m.size() != 2
      || m.value("$schema", json()) != json(agent_plugin_mcp_schema)
      || !m.contains("mcpServers") || !m["mcpServers"].is_object()) {
    log::get("skills")->warn("Ignoring invalid MCP component for Agent "
                             "Plugin '{}'",
                             p.name);
    return out;
  }
  fs::path data = agent_plugin_data_dir(workspace, config_dir, p.name);
  if (config_dir.empty() || !ensure_private_dir(data))
    return out;
  for (auto& [name, raw] : m["mcpServers"].items()) {
    bool bad_name = name.empty() || name.size() > 128
                    || std::any_of(name.begin(), name.end(), [](char c) {
                         return static_cast<unsigned char>(c) < 32;
                       });
    auto s = bad_name ? std::nullopt : plugin_server(raw, root, data);
    if (!s) {
      log::get("skills")->warn("Ignoring invalid MCP server '{}' in Agent "
                               "Plugin '{}'",
                               name, p.name);
      continue;
    }
    out[name] = std::move(*s);
  }
  return out;
}

} // namespace plugin_parts

using namespace plugin_parts;

std::map<std::string, mcp_server_settings>
enabled_plugin_mcp_servers(const std::string& workspace,
                           const std::string& config_dir) {
  std::map<std::string, mcp_server_settings> out;
  if (config_dir.empty())
    return out;
  for (auto& p : installed_plugins(workspace)) {
    if (!plugin_enabled(workspace, config_dir, p))
      continue;
    auto servers = plugin_servers(workspace, config_dir, p);
    for (auto& [name, s] : servers)
      out[servers.size() == 1 ? p.name : p.name + "--" + name] = s;
  }
  return out;
}

} // namespace nb

// Private to nb_skills: what agent_plugins.cpp (packages, enabling, skills)
// and agent_plugin_servers.cpp (their MCP servers) share.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/skills/agent_plugins.hpp"

namespace nb::plugin_parts {

/// Whether `p` is `root` or below it (both already resolved).
bool path_is_within(const std::filesystem::path& p,
                    const std::filesystem::path& root);
/// `path` resolved (it must exist, as a folder or a regular file) and inside
/// `root` after every link is followed; nullopt otherwise.
std::optional<std::filesystem::path>
contained(const std::filesystem::path& path, const std::filesystem::path& root,
          bool directory);
/// A JSON object file inside the package; null when absent or invalid.
nlohmann::json read_plugin_object(const std::filesystem::path& path,
                                  const std::filesystem::path& root);
/// Creates `p` (mode 0700) if needed; false when it is not a folder.
bool ensure_private_dir(const std::filesystem::path& p);
/// The packages under <workspace>/plugins that pass the original's checks.
std::vector<agent_plugin> installed_plugins(const std::string& workspace);
/// Whether this exact package is enabled (see agent_plugins.cpp).
bool plugin_enabled(const std::string& workspace, const std::string& config_dir,
                    const agent_plugin& p);
/// A package's valid MCP servers by their names in its mcp.json.
std::map<std::string, mcp_server_settings>
plugin_servers(const std::string& workspace, const std::string& config_dir,
               const agent_plugin& p);

} // namespace nb::plugin_parts

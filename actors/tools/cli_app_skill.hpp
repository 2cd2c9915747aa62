// Tools: the skill an installed CLI app brings, packaged as the original
// does: an Agent Plugin <workspace>/plugins/cli-app-<name>/ with plugin.json
// and skills/cli-app-<name>/SKILL.md (the registry's skill_md when it can be
// fetched from the registry's own raw base, else a short one written here),
// a note added telling the agent to run it through run_cli_app, and the
// plugin enabled. Blocking (files, HTTP): the WebUI's API thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nb {

/// "cli-app-<name>" (lowercased, [^a-z0-9_-] -> '-', '_' -> '-' unless
/// `legacy`, "app" when nothing is left).
std::string cli_app_skill_name(const std::string& name, bool legacy = false);

/// Writes the plugin for catalog row `app` under `workspace` and enables
/// it (its state under `config_dir`): "" or why not.
std::string install_cli_app_skill(const std::string& workspace,
                                  const std::string& config_dir,
                                  const nlohmann::json& app);

/// Removes the plugin of app `name` (and the older skills/ folder).
void remove_cli_app_skill(const std::string& workspace,
                          const std::string& name);

/// The app's SKILL.md relative to `workspace`: the plugin's
/// (plugins/cli-app-<name>/skills/cli-app-<name>/SKILL.md), or the older
/// skills/cli-app-<name>/SKILL.md when only that one is there.
std::string cli_app_skill_path(const std::string& workspace,
                               const std::string& name);

/// Whether the app's SKILL.md is there (the plugin's or the older one).
bool cli_app_skill_installed(const std::string& workspace,
                             const std::string& name);

} // namespace nb

// Tools: installing the CLI apps of the catalog, as the original's Settings
// page does it (nanobot/apps/cli/service.py): the app's package manager
// (pip, npm, brew, uv; "bundled" apps only detected) run by argv, never a
// shell, with the secret-free environment and tools.cliApps.installTimeout;
// the result recorded in <config dir>/cli-apps/installed.json and the
// app's skill installed as an enabled Agent Plugin in the workspace.
// Blocking (files, HTTP, children): the WebUI's API thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "config/settings.hpp"

namespace nb {

/// Where the apps live and the limits.
struct cli_apps_home {
  std::string config_dir; ///< cli-apps/ below it
  std::string workspace;  ///< plugins/ below it
  cli_apps_settings limits;
};

/// An action's answer: the original's payload ({apps, installed_count,
/// catalog_updated_at} plus last_action), or an error with its HTTP
/// status (400 refused, 404 unknown app, 500 the package manager failed).
struct cli_app_outcome {
  int status = 200;
  std::string error;
  nlohmann::json body = nlohmann::json::object();
};

/// The catalog with each app's state (installed, available on PATH, ...),
/// sorted by category then display name; `mode` as load_cli_catalog's.
/// Without a catalog, the installed apps alone.
nlohmann::json cli_apps_listing(const cli_apps_home& home, bool fetch);

/// The installed apps alone (installed.json's, by name; the cached
/// catalog's texts where it has the app), as the original's
/// installed_payload: what the WebUI's composer offers to attach.
nlohmann::json cli_apps_installed(const cli_apps_home& home);

/// "install", "update", "uninstall" or "test" for app `name`.
cli_app_outcome cli_app_action(const cli_apps_home& home,
                               const std::string& action,
                               const std::string& name);

} // namespace nb

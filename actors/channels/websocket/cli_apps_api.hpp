// The WebUI's CLI Apps settings behind /api/settings/cli-apps, as the
// original's Settings page uses them: the catalog with each app's state,
// and installing, updating, uninstalling or testing one app. After a
// change the tools fronts get their settings again, so run_cli_app's
// description names the apps installed now. Blocking: the WebSocket
// server's API worker thread.
#pragma once

#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/channels/websocket/cli_catalog_refresh.hpp"
#include "actors/channels/websocket/ws_server.hpp"

namespace nb::ws {

/// Answers these routes, or nullopt when `call` is none of them:
///   GET  settings/cli-apps[?installed_only=1]
///        {apps: [{name, display_name, category, description, requires,
///        source, entry_point, install_supported, installed, available,
///        status, skill_installed}], installed_count, catalog_updated_at,
///        catalog_refresh_pending} from the cached registries, at once; a
///        missing or stale cache starts `refresher` (pending: a refresh
///        runs, ask again). With installed_only (1, true, yes):
///        installed.json's apps alone, never the catalog's other rows.
///   POST settings/cli-apps/<install|update|uninstall|test>?name=<app>
///        the same plus last_action {ok, message, ...}; a refusal is
///        {error} with 400, 404 (unknown app) or 500 (the package manager
///        failed or ran out of tools.cliApps.installTimeout)
std::optional<api_reply> cli_apps_api(caf::actor_system& sys,
                                      const cli_catalog_refresher& refresher,
                                      const std::string& config_path,
                                      const api_call& call);

} // namespace nb::ws

// Tools: running a CLI app's package manager for the installer
// (cli_install.hpp): by argv with the secret-free environment, its output
// cut as the original's _truncate, and npm's install tried once more after
// it failed on a stale global folder (ENOTEMPTY on rename), as the
// original's _retry_stale_npm_install does. Blocking: the WebUI's API
// thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/tools/cli_install_argv.hpp"

namespace nb {

/// Runs `argv` (argv[0] looked up on PATH) for at most `timeout_s`:
/// nullopt on success, else why as a 500 (stderr, else stdout, else
/// `failed`; or the time limit).
std::optional<cli_install_refusal>
run_cli_package_manager(const std::vector<std::string>& argv, int timeout_s,
                        const std::string& failed);

/// Installs `app` with `argv`; when the strategy is npm and it failed with
/// ENOTEMPTY on a rename, the stale folders of its package below `npm root
/// -g` (<root>/<package>, <root>/.<package>-*) are removed and it runs
/// once more.
std::optional<cli_install_refusal>
install_with_package_manager(const nlohmann::json& app,
                             const std::vector<std::string>& argv,
                             int timeout_s);

} // namespace nb

// Tools: how a CLI app of the catalog is installed, as the original decides
// it (nanobot/apps/cli/service.py): the strategy its registry row names
// (pip, npm, brew, uv, bundled, else unsupported) and the package
// manager's argv for install, update and uninstall, never a shell line.
// Pure apart from looking programs up on PATH.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// An action refused: the original's message and the HTTP status (400
/// refused, 404 unknown, 500 the package manager failed).
struct cli_install_refusal {
  std::string message;
  int status = 400;
};

using cli_argv_or_refusal =
  std::variant<std::vector<std::string>, cli_install_refusal>;

/// Python's shlex.split (POSIX): nullopt for an unbalanced quote.
std::optional<std::vector<std::string>> cli_shlex_split(const std::string& s);

/// "bundled", "pip", "npm", "brew", "uv" or "unsupported".
std::string cli_install_strategy(const nlohmann::json& app);

/// A strategy we can run and no shell syntax in install_cmd.
bool cli_install_supported(const nlohmann::json& app);

/// `program` on PATH ("" = not there).
std::string cli_which(const std::string& program);

/// The package manager's argv for `action` ("install", "update",
/// "uninstall"); `installed_entry` is the app's installed.json record.
cli_argv_or_refusal
cli_manager_argv(const nlohmann::json& app, const std::string& action,
                 const nlohmann::json& installed_entry = nlohmann::json::object());

} // namespace nb

// Internal stages of config loading, shared by load.cpp, walk.cpp and
// env.cpp. Not for use outside config/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/keys.hpp"
#include "config/load.hpp"

namespace nb::config {

/// What loading has to say besides the settings themselves.
struct diagnostics {
  std::vector<std::string> warnings;
  std::vector<std::string> notices;
  /// Shown key path → the NANOBOT_* variable that set it, for error texts.
  std::map<std::string, std::string> env_origin;
};

/// "an object", "a string", "an integer"... for "found …" texts.
std::string type_name(const nlohmann::json& value);

/// Why a value does not fit its key; `at` extends the key path for a list
/// element ("[1]") or a map entry (".Authorization").
struct check_failure {
  std::string at;
  std::string reason;
};

/// Type and range check of one (interpolated) leaf value; fills `out`.
std::optional<check_failure> check_value(const key_spec& spec,
                                         const nlohmann::json& value,
                                         field_value& out);

/// Result of replacing `${VAR}` references in one string.
struct interpolation {
  std::string text;
  std::vector<std::string> missing; ///< names of unset variables
};

interpolation interpolate(std::string_view text, const env_lookup& env);

/// Validates `root` against the key table and stores every used value in
/// `out`. Unknown keys become warnings, known-but-unused keys notices.
std::optional<config_error> apply_tree(const nlohmann::json& root,
                                       settings& out, const env_lookup& env,
                                       diagnostics& diag);

/// Reads tools.mcpServers (a map of user-named servers with nested lists
/// and maps, so it is read here rather than through the key table).
std::optional<config_error> read_mcp_servers(const nlohmann::json& root,
                                             settings& out,
                                             const env_lookup& env);

/// Reads agents.list and agents.bindings (lists of objects) and checks
/// them: ids, duplicates, bindings and canMessage naming unknown agents,
/// shared or nested workspaces. Runs after the presets are applied.
std::optional<config_error> read_agents(const nlohmann::json& root,
                                        settings& out, const env_lookup& env,
                                        diagnostics& diag);

/// True when `env` is system_env() and no NANOBOT_ variable was set when it
/// was made (false for any other lookup: it cannot be asked).
bool sets_no_nanobot_variable(const env_lookup& env);

/// Writes NANOBOT_SECTION__KEY variables into `root` before validation.
void apply_env_overrides(nlohmann::json& root, const env_lookup& env,
                         diagnostics& diag);

/// Reads NANOBOT_LLM_TIMEOUT_S and NANOBOT_STREAM_IDLE_TIMEOUT_S.
void read_timeouts(const env_lookup& env, timeout_settings& out,
                   diagnostics& diag);

} // namespace nb::config

// Loading config.json into nb::settings: defaults, ${VAR} interpolation,
// NANOBOT_* environment overrides, validation that names the bad key.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/settings.hpp"

namespace nb {

/// Looks up one environment variable; nullopt when it is not set.
using env_lookup =
  std::function<std::optional<std::string>(const std::string&)>;

/// The process environment. Names starting with "NANOBOT_" also match
/// case-insensitively (nanobot's overrides ignore case) and are those set
/// when system_env() was called (one load asks for thousands of them);
/// `${VAR}` names are exact and read at each call.
env_lookup system_env();

/// A configuration that cannot be used. Never contains a configured value:
/// values may be secrets.
struct config_error {
  std::string key_path; ///< "agents.defaults.maxTokens"; "" for the file
  std::string reason;   ///< "expected an integer, found a string"
  /// "config error at <key_path>: <reason>".
  std::string message() const;
};

/// A usable configuration plus what the operator should hear about it.
struct loaded_settings {
  settings value;
  /// Problems that did not stop loading: unknown keys (with "did you mean"),
  /// ignored invalid timeouts, risky combinations.
  std::vector<std::string> warnings;
  /// Informational: defaults used, env overrides applied, keys nanobot knows
  /// that this gateway does not use yet.
  std::vector<std::string> notices;
};

using load_result = std::variant<loaded_settings, config_error>;

/// Returns "$HOME/.nanobot/config.json".
std::string default_config_path();

/// Loads the config file at `path`; a missing file means built-in defaults
/// (still subject to environment overrides). Sets `config_path` to `path`.
/// Never throws.
load_result load_settings(const std::string& path,
                          const env_lookup& env = system_env());

/// Like load_settings, for JSON text already in memory (`path` is recorded
/// as config_path and named in parse errors). Never throws.
load_result parse_settings(std::string_view json_text, const std::string& path,
                           const env_lookup& env = system_env());

/// True for 127.0.0.0/8, ::1 (bracketed or not) and "localhost".
bool is_loopback_host(std::string_view host);

} // namespace nb

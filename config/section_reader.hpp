// Reading one section of the config file outside the key table (cluster.*,
// agents.defaults.memory): the same camelCase/snake_case spellings, ${VAR}
// interpolation and NANOBOT_* overrides as the main loader, and errors
// that name the key path, never the value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/load.hpp"

namespace nb::config {

/// The value of `camel` (or its snake_case spelling) in `obj`, or null.
const nlohmann::json* field(const nlohmann::json& obj, std::string_view camel);

/// "cluster.tls.cert" -> "NANOBOT_CLUSTER__TLS__CERT".
std::string env_name(std::string_view path);

/// Reads typed leaves; the first problem is kept in `error`, later reads
/// go on (so one pass reports the first bad key).
struct section_reader {
  const env_lookup& env;
  std::optional<config_error> error;

  /// The object at `key` in `parent` ({} when absent or not an object;
  /// the latter is an error).
  nlohmann::json object(const nlohmann::json& parent, std::string_view key,
                        const std::string& path);
  std::optional<std::string> text(const nlohmann::json& obj,
                                  std::string_view key,
                                  const std::string& path);
  std::optional<int64_t> integer(const nlohmann::json& obj,
                                 std::string_view key, const std::string& path,
                                 int64_t lo, int64_t hi);
  std::optional<double> real(const nlohmann::json& obj, std::string_view key,
                             const std::string& path, double lo, double hi);
  std::optional<bool> flag(const nlohmann::json& obj, std::string_view key,
                           const std::string& path);
  void fail(const std::string& path, std::string reason);
};

/// The config file at `path` as JSON ({} when it does not exist), or an
/// error for unreadable or invalid JSON.
std::optional<config_error> read_config_json(const std::string& path,
                                             nlohmann::json& out);

/// A section's loader over JSON text: `from_root(root)` gives the Result
/// (a variant of the section's settings and config_error).
template <class Result, class FromRoot>
Result parse_section(const std::string& json_text, FromRoot&& from_root) {
  auto root = nlohmann::json::parse(json_text, nullptr, false, true);
  if (root.is_discarded())
    return config_error{"", "the config file is not valid JSON"};
  return from_root(root);
}

/// The same over the config file at `path` (missing file: defaults).
template <class Result, class FromRoot>
Result load_section(const std::string& path, FromRoot&& from_root) {
  nlohmann::json root;
  if (auto err = read_config_json(path, root))
    return *err;
  return from_root(root);
}

} // namespace nb::config

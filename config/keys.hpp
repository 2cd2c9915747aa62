// The config key table: every key nanobot knows, what it holds and where it
// lands in nb::settings. Data, not code paths.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"

namespace nb::config {

enum class key_kind : uint8_t {
  section,        ///< an object whose keys are listed in the table
  named_sections, ///< an object of user-chosen name → section ("providers")
  string,
  integer,
  number,
  seconds, ///< non-negative number of seconds, rounded up
  boolean,
  string_list,
  string_map,
  model_list,  ///< preset names or inline {"model": ...} objects
  json_object, ///< any JSON object, kept as text (providers.*.extraBody)
  ignored,     ///< known to nanobot, not used here: any value accepted
  raw_object,  ///< "x.*": any other key of x is a user-chosen name whose
               ///< object is kept verbatim (text = JSON, flag = enabled)
  external,    ///< read and checked by another loader (cluster_config)
};

/// A validated leaf value, in the shape its kind implies.
struct field_value {
  std::string text;
  int64_t integer = 0;
  double number = 0;
  bool flag = false;
  std::vector<std::string> list;
  std::map<std::string, std::string> map;
  std::vector<fallback_model> models; ///< model_list entries
};

/// Stores a validated value; `name` is the '*' part of the path ("" if none).
using apply_fn = void (*)(settings&, const std::string& name,
                          const field_value&);

inline constexpr double no_limit = std::numeric_limits<double>::infinity();
/// The largest value an integer key may hold (the original reads them into
/// 32-bit fields).
inline constexpr double i32_max = 2147483647.0;

struct key_spec {
  std::string_view path; ///< camelCase, '*' = a user-chosen name
  key_kind kind = key_kind::section;
  double min = -no_limit; ///< integer/number/seconds bounds; string: 1 =
  double max = no_limit;  ///< must not be empty
  apply_fn apply = nullptr;
};

/// The whole table, parents before children.
const std::vector<key_spec>& key_table();

/// The direct children of `section` ("" = top level, "providers.*").
std::vector<const key_spec*> children_of(std::string_view section);

/// The last dot-separated part of a path.
std::string_view leaf_name(std::string_view path);

/// "maxTokens" → "max_tokens" (pydantic's field name for the alias).
std::string snake_case(std::string_view camel);

/// Whether a JSON key spells `camel` in either accepted form.
bool key_matches(std::string_view json_key, std::string_view camel);

/// `key` as it may appear in a message: secret-looking or odd keys become
/// "<redacted key>".
std::string display_key(const std::string& key);

/// The closest of `candidates` to `key` if it is close enough to be a typo.
std::optional<std::string>
suggest_key(std::string_view key, const std::vector<std::string>& candidates);

/// Provider names nanobot ships (env overrides are looked up for these and
/// for every name in the file).
const std::vector<std::string>& builtin_provider_names();

} // namespace nb::config

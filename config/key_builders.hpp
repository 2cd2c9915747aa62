// The small constructors the config key table is written with (keys.cpp,
// keys_tools.cpp): one line per key, kinds and bounds named.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/keys.hpp"

namespace nb::config::key_builders {

using k = key_kind;
using name_t = const std::string&;
using val_t = const field_value&;

inline key_spec section(std::string_view path) {
  return {path, k::section};
}

inline key_spec ignored(std::string_view path) {
  return {path, k::ignored};
}

inline key_spec leaf(std::string_view path, key_kind kind, double min,
                     double max, apply_fn apply) {
  return {path, kind, min, max, apply};
}

inline key_spec text(std::string_view path, bool non_empty, apply_fn apply) {
  return {path, k::string, non_empty ? 1.0 : 0.0, no_limit, apply};
}

inline int32_t i32(val_t v) {
  return static_cast<int32_t>(v.integer);
}

/// The tools.* keys (keys_tools.cpp), in table order.
std::vector<key_spec> tools_keys();

} // namespace nb::config::key_builders

// Reading a tool call's arguments where a tool's schema leaves them
// optional, and the paging limits the search tools share.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace nb {

/// find_files and grep return at most this many entries per call.
inline constexpr int64_t max_head_limit = 1000;

/// `args[key]` when it is an integer, else `fallback`.
inline int64_t int_arg(const nlohmann::json& args, const char* key,
                       int64_t fallback) {
  return args.contains(key) && args[key].is_number_integer()
           ? args[key].get<int64_t>()
           : fallback;
}

} // namespace nb

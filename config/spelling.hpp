// Typo distance between two names, for every "did you mean" in the gateway
// (config keys, slash commands, tool names).
#pragma once

#include <cstddef>
#include <string_view>

namespace nb {

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and a swap of two neighbouring letters ("prot" for "port") count one each.
size_t edit_distance(std::string_view a, std::string_view b);

} // namespace nb

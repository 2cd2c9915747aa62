// The newest entries of memory/history.jsonl, read from the file's end (the
// file only grows; what a prompt needs of it is its tail).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "actors/memory/history_file.hpp"

namespace nb {

/// The last `max_entries` readable entries of history.jsonl (in file order),
/// reading at most about `max_bytes` from its end (in 64 KB blocks): what a
/// prompt's "Recent History" draws on, without holding the whole file.
std::vector<history_entry> read_history_tail(const std::string& workspace,
                                             size_t max_entries,
                                             size_t max_bytes = 4u << 20);

} // namespace nb

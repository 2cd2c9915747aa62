// memory/MEMORY.md, the long-term facts: consolidation adds the lasting
// facts it found in archived turns under their own heading.
#pragma once

#include <string>
#include <vector>

namespace nb {

/// The heading under which facts from conversations are collected.
inline constexpr const char* memory_facts_heading = "## From conversations";

/// Appends each fact not yet in <workspace>/memory/MEMORY.md as a "- fact"
/// line under memory_facts_heading (created at the end when missing), with
/// an atomic replace under the memory/ lock. Returns how many were added,
/// or -1 with `error` set. Blocking (worker threads only); never throws.
int add_memory_facts(const std::string& workspace,
                     const std::vector<std::string>& facts,
                     std::string& error);

} // namespace nb

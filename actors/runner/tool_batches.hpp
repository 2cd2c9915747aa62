// Splits one model reply's tool calls into batches: consecutive calls that
// are safe to run side by side form one batch, every other call runs alone.
#pragma once

#include <vector>

#include "messages/tool.hpp"

namespace nb {

/// A run of call indexes (into the reply's tool_calls) executed together.
struct tool_batch {
  std::vector<size_t> calls;
  bool parallel = false;
};

/// Partitions `calls` in model order. A call is concurrency-safe when its
/// tool is known and read_only && !exclusive; unknown tools are not safe.
std::vector<tool_batch> partition_tool_calls(const std::vector<tool_call>& calls,
                                             const std::vector<tool_spec>& specs);

} // namespace nb

#include "actors/runner/tool_batches.hpp"

#include <algorithm>

namespace nb {

std::vector<tool_batch> partition_tool_calls(const std::vector<tool_call>& calls,
                                             const std::vector<tool_spec>& specs) {
  auto safe = [&](const tool_call& c) {
    auto i = std::find_if(specs.begin(), specs.end(),
                          [&](const tool_spec& s) { return s.name == c.name; });
    return i != specs.end() && concurrency_safe(*i);
  };
  std::vector<tool_batch> out;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (safe(calls[i])) {
      if (out.empty() || !out.back().parallel)
        out.push_back({{}, true});
      out.back().calls.push_back(i);
    } else {
      out.push_back({{i}, false});
    }
  }
  return out;
}

} // namespace nb

// Tools: a worker runs one tool call at a time on its own thread; the pool
// keeps up to gateway.toolWorkers of them.
#pragma once

#include <memory>
#include <string>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/tools/registry.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// Microseconds on the steady clock (tool_result time stamps).
int64_t steady_now_us();

/// Runs `req` with `reg` under `base` (its session key filled in). Never
/// throws; the result carries the steady-clock start and end times.
tool_result run_tool_request(const tool_registry& reg, tool_context base,
                             const tool_request& req);

/// Sends one tool_sample for `r` to `stats` (null: nothing).
void report_tool_sample(const stats_actor& stats, const tool_result& r,
                        const std::string& agent);

struct tool_worker_state {
  tool_worker_state() = default;
  static inline const char* name = "tool_worker";
  actor_meter meter;
};

/// A blocking tool runner: spawn it with caf::detached. `meter_kind` ""
/// leaves it out of the per-actor figures.
tool_executor_actor::behavior_type
tool_worker_impl(tool_executor_actor::stateful_pointer<tool_worker_state> self,
                 std::shared_ptr<const tool_registry> registry,
                 tool_context base, stats_actor stats, std::string meter_kind);

} // namespace nb

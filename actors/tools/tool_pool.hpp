// Tools: the read-only pool. Up to N detached workers run calls side by
// side; calls beyond that wait in a FIFO queue.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/common/meter.hpp"
#include "actors/tools/registry.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct tool_pool_state {
  tool_pool_state() = default;
  static inline const char* name = "tool_pool";

  /// A call waiting for a free worker.
  struct job {
    tool_request req;
    caf::typed_response_promise<tool_result> promise;
  };

  std::shared_ptr<const tool_registry> registry;
  tool_context base;
  stats_actor stats;
  int32_t max_workers = 1;
  int32_t spawned = 0;
  std::vector<tool_executor_actor> idle;
  std::deque<job> queue;
  actor_meter meter;
};

/// The pool actor; runs on the scheduler, its workers are detached.
tool_executor_actor::behavior_type
tool_pool_impl(tool_executor_actor::stateful_pointer<tool_pool_state> self,
               std::shared_ptr<const tool_registry> registry,
               tool_context base, int32_t max_workers, stats_actor stats);

} // namespace nb

// Tools: the worker pool every chat shares. Up to N detached workers run
// calls side by side; calls beyond that wait in one FIFO queue. A chat's
// exclusive calls (tools not concurrency-safe: exec, write_file, ...) run
// one at a time and in order; they never wait for another chat's calls,
// only for a free worker. Concurrency-safe calls are not ordered.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <set>
#include <string>
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

  /// A call waiting for a free worker (and, if ordered, for its chat's
  /// previous exclusive call to end).
  struct job {
    tool_request req;
    caf::typed_response_promise<tool_result> promise;
    std::string order_key; ///< the session key; "" = runs in any order
    std::chrono::steady_clock::time_point queued_at;
  };

  std::shared_ptr<const tool_registry> registry;
  tool_context base;
  stats_actor stats;
  int32_t max_workers = 1;
  int32_t spawned = 0;
  int32_t busy = 0;
  /// Free workers, the longest free first (the newest is reused first).
  struct idle_worker {
    tool_executor_actor worker;
    std::chrono::steady_clock::time_point since;
  };
  std::vector<idle_worker> idle;
  std::deque<job> queue;
  /// Chats with an exclusive call running now.
  std::set<std::string> running_keys;
  /// Queue waits of the most recent calls (ms), for the /stats gauges.
  std::deque<int64_t> waits_ms;
  actor_meter meter;
};

/// The pool actor; runs on the scheduler, its workers are detached.
tool_executor_actor::behavior_type
tool_pool_impl(tool_executor_actor::stateful_pointer<tool_pool_state> self,
               std::shared_ptr<const tool_registry> registry,
               tool_context base, int32_t max_workers, stats_actor stats);

} // namespace nb

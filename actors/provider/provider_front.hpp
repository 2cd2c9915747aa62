// The provider front's state and its worker pool (provider_pool.cpp),
// shared by the front's files only: the front (provider.cpp) decides what
// a call is, the pool runs it on a free worker and can cut it short.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "actors/common/meter.hpp"
#include "actors/common/request_deadlines.hpp"
#include "actors/provider/fallback.hpp"
#include "actors/provider/provider_worker.hpp"
#include "actors/provider/responses_route.hpp"
#include "messages/provider_admin.hpp"

namespace nb::provider_front {

using worker_actor = provider_worker_actor;

/// A worker and the cancel flag its client watches: the front raises it to
/// cut the worker's running call (model_cancel, or the front ending).
struct pooled_worker {
  caf::actor handle;
  std::shared_ptr<std::atomic<bool>> cancel;
};

/// What the front and its termination hook share: the workers to cancel
/// and stop. Only the front's thread touches it until the hook runs.
struct pool_handle {
  std::vector<pooled_worker> workers;
};

/// A request waiting for a free worker, with what the front decided.
struct pending_call {
  model_request req;
  caf::typed_response_promise<model_reply> rp;
  std::string provider; ///< the primary's provider, for stats
  std::string model;    ///< the primary's model as configured
  std::string agent;    ///< whose turn called, for stats
  std::string breaker_key; ///< "" = no fallbacks, no breaker
  int32_t start = 0;
  size_t candidates = 1;
  /// The Responses breaker keys that were open when the call was queued.
  std::vector<std::string> responses_open;
};

struct provider_state {
  provider_state() = default;
  static inline const char* name = "provider";
  settings cfg;
  client_options opts;
  stats_actor stats;
  size_t max_workers = 1;
  std::shared_ptr<pool_handle> pool;
  /// Free workers, the longest free first (the newest is reused first).
  struct idle_worker {
    worker_actor worker;
    std::chrono::steady_clock::time_point since;
  };
  std::vector<idle_worker> idle;
  /// Whether a clock entry to retire idle workers is pending (one at most).
  bool retire_armed = false;
  size_t live_workers = 0;
  std::deque<pending_call> queue;
  int64_t inflight = 0;
  circuit_breaker breaker{3, std::chrono::seconds{60}};
  /// Endpoints that refused the Responses API: `auto` uses Chat
  /// Completions there for a while (responses_route.hpp).
  circuit_breaker responses_breaker{responses_failure_threshold,
                                    responses_probe_interval};
  /// Endpoints (compaction_key()) that refused server compaction: asked
  /// for it no more, as the original turns it off for that provider
  /// instance (until new settings come).
  std::vector<std::string> compaction_off;
  actor_meter meter;
  /// The timeouts of its pending requests (timed_request).
  request_deadlines deadlines;
  /// agents.defaults as the gateway started: sessions keep asking for that
  /// model; once new settings came (provider_config) such a request means
  /// "the default model" and gets today's.
  std::string boot_model;
  std::string boot_provider;
  bool swapped = false;
  /// Settings generation a worker was spawned with: one spawned before the
  /// last provider_config is retired once its call ends.
  int generation = 0;
  std::map<caf::actor_addr, int> worker_generation;
  /// The calls running now, by request id, and the worker running each.
  std::map<std::string, caf::actor_addr> running;
};

using provider_pointer
  = provider_admin_actor::stateful_pointer<provider_state>;

/// Hands queued calls to free (or new) workers while the pool has room;
/// retires the workers idle for too long.
void pump(provider_pointer self);

/// Stops `worker` and forgets it.
void retire(provider_pointer self, const worker_actor& worker);

/// Drops the queued call `id` (answered as cancelled) or raises the cancel
/// flag of the worker running it; an unknown id has already ended.
void cancel_call(provider_pointer self, const std::string& id);

/// Counts a finished (or refused) call for the stats.
void report_call(provider_pointer self, const pending_call& call,
                 const model_reply& r);

/// Sends the queue length and the calls in flight to the stats.
void report_gauges(provider_pointer self);

} // namespace nb::provider_front

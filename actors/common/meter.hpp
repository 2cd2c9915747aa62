// Per-actor counters for /stats: messages handled, handling time, mailbox
// high-water mark, errors, spawns and quits, reported to the stats actor.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <caf/local_actor.hpp>

#include "messages/interfaces.hpp"

namespace nb {

/// Histogram bucket of a handling time: four buckets per power of two of
/// microseconds, so percentiles are accurate to about 19 %.
int latency_bucket(int64_t micros);
/// Upper bound in microseconds of `bucket`.
int64_t latency_bucket_bound(int bucket);
inline constexpr int latency_buckets = 4 * 32;

/// Counts what one actor does and reports it in batches: at most 100 ms
/// after the last report (at once when that long has passed; else once the
/// mailbox runs empty, deferred to the end of those 100 ms on the actor's
/// clock), and when the actor quits.
/// Lives in the actor's state; call start() once after spawn.
class actor_meter {
public:
  actor_meter() = default;

  /// Begins reporting for `self` as an actor of `kind` (null stats: no-op).
  /// A `short_lived` actor (one per turn) arms no clock entry for counts
  /// left when its mailbox runs empty: they go with its quit report, or with
  /// the next message handled once 100 ms have passed.
  void start(caf::scheduled_actor* self, std::string kind, stats_actor stats,
             bool short_lived = false);

  /// Times one handler: `auto t = meter.measure();` at its top.
  class scope {
  public:
    explicit scope(actor_meter* m);
    scope(scope&&) = delete;
    ~scope();

  private:
    actor_meter* meter_;
    std::chrono::steady_clock::time_point start_;
  };

  scope measure() { return scope{this}; }

  /// Counts a failed handler (a turn failure, a provider error, ...).
  void failed();

  /// Sends the pending counts now.
  void flush();

private:
  struct data;
  void record(int64_t micros);
  caf::scheduled_actor* self_ = nullptr;
  std::shared_ptr<data> data_;
};

} // namespace nb

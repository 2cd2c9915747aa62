#include "actors/common/meter.hpp"
#include "actors/common/own_timer.hpp"

#include <bit>
#include <cmath>

#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>

#include <spdlog/spdlog.h>

namespace nb {

int latency_bucket(int64_t micros) {
  if (micros <= 0)
    return 0;
  auto b = static_cast<int>(std::floor(4.0 * std::log2(double(micros) + 1)));
  return b < latency_buckets ? b : latency_buckets - 1;
}

int64_t latency_bucket_bound(int bucket) {
  return static_cast<int64_t>(std::ceil(std::exp2((bucket + 1) / 4.0) - 1));
}

namespace {

/// How long counts may wait for their report.
constexpr auto meter_report_every = std::chrono::milliseconds(100);

} // namespace

struct actor_meter::data {
  stats_actor stats;
  actor_sample pending;
  std::chrono::steady_clock::time_point last_flush;
  bool flush_armed = false; ///< a deferred report is on the actor's clock
  /// No deferred reports: each arming woke CAF's clock thread, and an actor
  /// of one turn (the runner) armed one per turn before its quit report.
  bool short_lived = false;
};

void actor_meter::start(caf::scheduled_actor* self, std::string kind,
                        stats_actor stats, bool short_lived) {
  if (!stats)
    return;
  self_ = self;
  data_ = std::make_shared<data>();
  data_->short_lived = short_lived;
  data_->stats = std::move(stats);
  data_->pending.kind = std::move(kind);
  data_->pending.spawned = 1;
  flush();
  // The last report goes out when the actor is gone, however it ended.
  self->attach_functor([d = data_](const caf::error&) {
    spdlog::debug("actor {} quit", d->pending.kind);
    d->pending.quit = 1;
    caf::anon_send(d->stats, std::move(d->pending));
  });
}

actor_meter::scope::scope(actor_meter* m)
  : meter_(m), start_(std::chrono::steady_clock::now()) {
  // nop
}

actor_meter::scope::~scope() {
  auto dt = std::chrono::steady_clock::now() - start_;
  meter_->record(
    std::chrono::duration_cast<std::chrono::microseconds>(dt).count());
}

void actor_meter::failed() {
  if (data_)
    ++data_->pending.errors;
}

void actor_meter::record(int64_t micros) {
  if (!data_)
    return;
  auto& p = data_->pending;
  ++p.handled;
  // Only as long as the slowest bucket seen since the last report: an
  // idle actor holds none (128 buckets were 1 KB in each of thousands of
  // idle sessions), and the stats actor merges any length.
  auto bucket = static_cast<size_t>(latency_bucket(micros));
  if (p.latency_hist.size() <= bucket)
    p.latency_hist.resize(bucket + 1, 0);
  ++p.latency_hist[bucket];
  auto queued = static_cast<int64_t>(self_->mailbox().size());
  if (queued > p.mailbox_high)
    p.mailbox_high = queued;
  auto now = std::chrono::steady_clock::now();
  if (now - data_->last_flush >= meter_report_every) {
    flush();
    return;
  }
  if (queued > 0 || data_->flush_armed || data_->short_lived)
    return;
  // The mailbox ran empty within 100 ms of the last report: the counts go
  // out when those 100 ms are over, not now. Reporting at every empty
  // mailbox sent the stats actor a message for nearly every message the
  // turn path handled (its actors rarely find a second one queued): ~16 per
  // plain turn, each waking a scheduler thread. The deferred report is a
  // request timeout of the actor's own, so the clock drops it (and holds no
  // reference) when the actor ends; the quit report covers what is left.
  data_->flush_armed = true;
  auto due = self_->clock().now();
  due += meter_report_every;
  run_at(self_, due, [this] {
    data_->flush_armed = false;
    flush();
  });
}

void actor_meter::flush() {
  if (!data_)
    return;
  auto& p = data_->pending;
  if (p.handled == 0 && p.spawned == 0 && p.errors == 0)
    return;
  caf::anon_send(data_->stats,
                 actor_sample{p.kind, p.spawned, p.quit, p.handled, p.errors,
                              p.mailbox_high, std::move(p.latency_hist)});
  p.spawned = 0;
  p.handled = 0;
  p.errors = 0;
  p.mailbox_high = 0;
  p.latency_hist = {};
  data_->last_flush = std::chrono::steady_clock::now();
}

} // namespace nb

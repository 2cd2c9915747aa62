// The provider front's worker pool: each queued call goes to a free worker
// (a detached actor with its own blocking HTTP client), a new one while
// the pool has room; a call can be cancelled queued or running, and
// workers idle too long, or spawned with old settings, end.
#include "actors/provider/provider_front.hpp"

#include <algorithm>

#include <caf/all.hpp>

#include "actors/common/log.hpp"
#include "actors/common/own_timer.hpp"
#include "actors/common/timed_request.hpp"

namespace nb::provider_front {

void report_gauges(provider_pointer self) {
  auto& st = self->state;
  if (!st.stats)
    return;
  self->send(st.stats, gauge_sample{"provider_queue",
                                    static_cast<int64_t>(st.queue.size())});
  self->send(st.stats, gauge_sample{"provider_inflight", st.inflight});
}

void report_call(provider_pointer self, const pending_call& call,
                 const model_reply& r) {
  auto& st = self->state;
  if (r.finish_reason == "error")
    st.meter.failed();
  auto model = r.fallback_model.empty() ? call.model : r.fallback_model;
  if (st.stats)
    self->send(st.stats,
               provider_sample{call.provider, model, r.finish_reason != "error",
                               r.attempts, r.latency_us, r.usage, call.agent});
}

namespace {

/// How long the front waits for a worker: the client's own wall clock for
/// each candidate plus a margin; the client normally answers well before.
caf::duration call_bound(const client_options& o, const model_request& req,
                         size_t candidates) {
  auto limit = req.stream ? o.stream_call_timeout : o.call_timeout;
  if (limit.count() <= 0 || req.no_wall_clock)
    limit = std::chrono::hours{24};
  return caf::duration{limit * static_cast<int64_t>(candidates)
                       + std::chrono::seconds{30}};
}

} // namespace

void retire(provider_pointer self, const worker_actor& worker) {
  auto& st = self->state;
  st.worker_generation.erase(worker.address());
  auto& all = st.pool->workers;
  std::erase_if(all, [&](const pooled_worker& w) {
    return w.handle.address() == worker.address();
  });
  self->send_exit(worker, caf::exit_reason::user_shutdown);
  --st.live_workers;
}

namespace {

/// Retires the workers free for longer than opts.worker_idle_limit.
void retire_idle(provider_pointer self) {
  auto& st = self->state;
  auto now = std::chrono::steady_clock::now();
  size_t stale = 0;
  while (stale < st.idle.size()
         && now - st.idle[stale].since >= st.opts.worker_idle_limit)
    ++stale;
  for (size_t i = 0; i < stale; ++i)
    retire(self, st.idle[i].worker);
  st.idle.erase(st.idle.begin(),
                st.idle.begin() + static_cast<std::ptrdiff_t>(stale));
}

/// Idle workers also end when no call comes after them (pump() retires
/// them only when one does): a gateway that answered its last turn keeps
/// no provider thread (issue 22: idle threads exit). One clock entry at a
/// time, due when the longest-free worker's limit is up, so a busy gateway
/// adds one entry a minute, not one per call.
void arm_retire_idle(provider_pointer self) {
  auto& st = self->state;
  if (st.retire_armed || st.idle.empty())
    return;
  st.retire_armed = true;
  auto due = st.idle.front().since + st.opts.worker_idle_limit;
  run_at(self, due, [self] {
    self->state.retire_armed = false;
    retire_idle(self);
    arm_retire_idle(self);
  });
}

/// The cancel flag of `worker`, or null for one the pool no longer has.
std::shared_ptr<std::atomic<bool>> cancel_flag(provider_pointer self,
                                               const caf::actor_addr& worker) {
  for (auto& w : self->state.pool->workers)
    if (w.handle.address() == worker)
      return w.cancel;
  return nullptr;
}

/// An endpoint refused server compaction: no call asks for it there again
/// (said once in the log, as the original does).
void turn_compaction_off(provider_pointer self, const std::string& key) {
  auto& off = self->state.compaction_off;
  if (std::find(off.begin(), off.end(), key) != off.end())
    return;
  off.push_back(key);
  auto at = key.find('\n');
  nb::log::get("provider")
    ->warn("provider {} at {}: the endpoint refused server compaction; "
           "turned off for it",
           key.substr(0, at), at == std::string::npos ? "" : key.substr(at + 1));
}

/// The call `id` has ended (answered, failed or cancelled).
void forget_running(provider_pointer self, const std::string& id,
                    const caf::actor_addr& worker) {
  auto& running = self->state.running;
  if (auto it = running.find(id); it != running.end() && it->second == worker)
    running.erase(it);
}

void run_call(provider_pointer self, worker_actor worker, pending_call call) {
  auto& st = self->state;
  ++st.inflight;
  auto bound = call_bound(st.opts, call.req, call.candidates);
  auto start = call.start;
  // A worker is given one call at a time: a cancel meant for its last call
  // must not cut this one.
  if (auto flag = cancel_flag(self, worker.address()))
    flag->store(false);
  auto id = call.req.request_id;
  if (!id.empty())
    st.running[id] = worker.address();
  auto req = std::move(call.req);
  auto open = std::move(call.responses_open);
  auto shared = std::make_shared<pending_call>(std::move(call));
  timed_request(self, worker, bound, std::move(req), start, std::move(open),
                st.compaction_off)
    .then(
      [self, worker, shared, id](model_reply& reply, bool first_failed,
                                 responses_report& rr) {
        auto& st = self->state;
        --st.inflight;
        forget_running(self, id, worker.address());
        auto& c = *shared;
        auto now = circuit_breaker::clock::now();
        if (!c.breaker_key.empty() && c.start == 0)
          st.breaker.record(c.breaker_key, first_failed, now);
        for (auto& key : rr.answered)
          st.responses_breaker.record(key, false, now);
        for (auto& key : rr.refused)
          st.responses_breaker.record(key, true, now);
        for (auto& key : rr.compaction_refused)
          turn_compaction_off(self, key);
        report_call(self, c, reply);
        c.rp.deliver(std::move(reply));
        auto g = st.worker_generation.find(worker.address());
        if (g != st.worker_generation.end() && g->second == st.generation) {
          st.idle.push_back({worker, std::chrono::steady_clock::now()});
          arm_retire_idle(self);
        } else {
          // Its settings are out of date: the next call gets a fresh one.
          retire(self, worker);
        }
        pump(self);
      },
      [self, worker, shared, id](caf::error& err) {
        auto& st = self->state;
        --st.inflight;
        forget_running(self, id, worker.address());
        model_reply reply;
        reply.finish_reason = "error";
        reply.error = err == caf::sec::request_timeout
                        ? "Model request failed: no answer in time."
                        : "Model request failed: the provider worker stopped.";
        report_call(self, *shared, reply);
        shared->rp.deliver(std::move(reply));
        // A worker that did not answer may still be blocked: retire it.
        retire(self, worker);
        nb::log::get("provider")->warn("retired a provider worker: {}",
                                       self->system().render(err));
        pump(self);
      });
}

} // namespace

void pump(provider_pointer self) {
  auto& st = self->state;
  retire_idle(self);
  while (!st.queue.empty()) {
    worker_actor worker;
    if (!st.idle.empty()) {
      // Newest first: its keep-alive connection is the least likely stale.
      worker = st.idle.back().worker;
      st.idle.pop_back();
    } else if (st.live_workers < st.max_workers) {
      auto cancel = std::make_shared<std::atomic<bool>>(false);
      worker = spawn_provider_worker(self, st.cfg, st.opts, cancel, st.stats);
      st.pool->workers.push_back(
        {caf::actor_cast<caf::actor>(worker), std::move(cancel)});
      st.worker_generation[worker.address()] = st.generation;
      ++st.live_workers;
    } else {
      break;
    }
    auto call = std::move(st.queue.front());
    st.queue.pop_front();
    run_call(self, worker, std::move(call));
  }
  report_gauges(self);
}

void cancel_call(provider_pointer self, const std::string& id) {
  auto& st = self->state;
  if (id.empty())
    return;
  auto queued = std::find_if(st.queue.begin(), st.queue.end(),
                             [&](const pending_call& c) {
                               return c.req.request_id == id;
                             });
  if (queued != st.queue.end()) {
    model_reply reply;
    reply.finish_reason = "error";
    reply.error = cancelled_call_text;
    queued->rp.deliver(std::move(reply));
    st.queue.erase(queued);
    report_gauges(self);
    return;
  }
  if (auto it = st.running.find(id); it != st.running.end())
    if (auto flag = cancel_flag(self, it->second))
      flag->store(true);
}

} // namespace nb::provider_front

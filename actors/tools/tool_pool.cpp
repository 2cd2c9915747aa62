#include "actors/tools/tool_pool.hpp"

#include <algorithm>

#include <caf/send.hpp>

#include "actors/common/guard.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/tools/stop_with.hpp"
#include "actors/tools/tool_worker.hpp"

namespace nb {

namespace {

using pool_ptr = tool_executor_actor::stateful_pointer<tool_pool_state>;
using clock = std::chrono::steady_clock;

// Longer than any exec timeout (600 s at most): a worker silent for this
// long is presumed stuck in a system call and is replaced, not reused.
constexpr auto worker_timeout = std::chrono::minutes(15);

// How many recent waits the /stats percentiles are taken over.
constexpr size_t wait_window = 1024;

// A worker free this long ends (its thread with it): a burst of tool calls
// leaves no more threads behind than the steady load uses.
constexpr auto worker_idle_limit = std::chrono::seconds(60);

/// Ends the workers free for longer than worker_idle_limit.
void retire_idle(pool_ptr self) {
  auto& st = self->state;
  auto now = clock::now();
  size_t stale = 0;
  while (stale < st.idle.size()
         && now - st.idle[stale].since >= worker_idle_limit)
    ++stale;
  for (size_t i = 0; i < stale; ++i) {
    caf::anon_send_exit(st.idle[i].worker, caf::exit_reason::user_shutdown);
    --st.spawned;
  }
  st.idle.erase(st.idle.begin(),
                st.idle.begin() + static_cast<std::ptrdiff_t>(stale));
}

tool_executor_actor take_worker(pool_ptr self) {
  auto& st = self->state;
  retire_idle(self);
  if (!st.idle.empty()) {
    auto w = std::move(st.idle.back().worker);
    st.idle.pop_back();
    return w;
  }
  if (st.spawned >= st.max_workers)
    return {};
  auto w = self->spawn<caf::detached>(tool_worker_impl, st.registry, st.base,
                                      st.stats, std::string{});
  stop_with(self, w);
  ++st.spawned;
  return w;
}

/// The first job that may start now: unordered, or of a chat with no
/// exclusive call running. A chat's jobs are skipped or taken together,
/// so its oldest always goes first.
std::deque<tool_pool_state::job>::iterator next_job(tool_pool_state& st) {
  return std::find_if(st.queue.begin(), st.queue.end(), [&](auto& j) {
    return j.order_key.empty() || !st.running_keys.count(j.order_key);
  });
}

void report(pool_ptr self) {
  auto& st = self->state;
  if (!st.stats)
    return;
  auto gauge = [&](const char* name, int64_t v) {
    self->send(st.stats, gauge_sample{name, v});
  };
  gauge("tool_queue", static_cast<int64_t>(st.queue.size()));
  gauge("tool_workers_busy", st.busy);
  if (st.waits_ms.empty())
    return;
  std::vector<int64_t> w(st.waits_ms.begin(), st.waits_ms.end());
  std::sort(w.begin(), w.end());
  auto at = [&](double q) {
    return w[std::min(w.size() - 1, static_cast<size_t>(q * w.size()))];
  };
  gauge("tool_wait_p50_ms", at(0.5));
  gauge("tool_wait_p99_ms", at(0.99));
  gauge("tool_wait_max_ms", w.back());
}

void dispatch(pool_ptr self);

void finished(pool_ptr self, tool_executor_actor worker,
              const std::string& key, bool reuse) {
  auto& st = self->state;
  --st.busy;
  if (!key.empty())
    st.running_keys.erase(key);
  if (reuse)
    st.idle.push_back({std::move(worker), clock::now()});
  dispatch(self);
}

void dispatch(pool_ptr self) {
  auto& st = self->state;
  for (;;) {
    auto it = next_job(st);
    if (it == st.queue.end())
      break;
    auto worker = take_worker(self);
    if (!worker)
      break; // all busy: the queue waits for the next reply
    auto job = std::move(*it);
    st.queue.erase(it);
    ++st.busy;
    if (!job.order_key.empty())
      st.running_keys.insert(job.order_key);
    st.waits_ms.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(
                            clock::now() - job.queued_at)
                            .count());
    if (st.waits_ms.size() > wait_window)
      st.waits_ms.pop_front();
    auto promise = job.promise;
    auto call = job.req.call;
    auto key = job.order_key;
    timed_request(self, worker, worker_timeout, std::move(job.req))
      .then(
        [self, worker, promise, key](tool_result& r) mutable {
          promise.deliver(std::move(r));
          finished(self, worker, key, true);
        },
        [self, worker, promise, call, key](caf::error& err) mutable {
          self->state.meter.failed();
          --self->state.spawned;
          caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
          tool_result r;
          r.call_id = call.id;
          r.name = call.name;
          r.is_error = true;
          r.content = "Error executing " + call.name + ": the tool worker "
                      "failed (" + caf::to_string(err) + ")"
                      + tool_error_hint;
          r.started_us = r.finished_us = steady_now_us();
          report_tool_sample(self->state.stats, r, self->state.base.agent);
          promise.deliver(std::move(r));
          finished(self, worker, key, false);
        });
  }
  report(self);
}

} // namespace

tool_executor_actor::behavior_type
tool_pool_impl(pool_ptr self, std::shared_ptr<const tool_registry> registry,
               tool_context base, int32_t max_workers, stats_actor stats) {
  auto& st = self->state;
  st.registry = std::move(registry);
  st.base = std::move(base);
  st.stats = stats;
  st.max_workers = max_workers < 1 ? 1 : max_workers;
  st.meter.start(self, "tool_pool", std::move(stats));
  return {
    guard("tools", [self](tool_request& req) -> caf::result<tool_result> {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      auto promise = self->make_response_promise<tool_result>();
      auto* tool = st.registry->find(req.call.name);
      // Unknown names are answered by the worker (with the error text).
      std::string key;
      if (tool && !concurrency_safe(tool->spec))
        key = req.session_key.empty() ? std::string{"-"} : req.session_key;
      st.queue.push_back({std::move(req), promise, std::move(key),
                          clock::now()});
      dispatch(self);
      return promise;
    }),
  };
}

} // namespace nb

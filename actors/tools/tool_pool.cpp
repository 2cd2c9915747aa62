#include "actors/tools/tool_pool.hpp"

#include <chrono>

#include <caf/send.hpp>

#include "actors/tools/tool_lane.hpp"
#include "actors/tools/tool_worker.hpp"

namespace nb {

namespace {

using pool_ptr = tool_executor_actor::stateful_pointer<tool_pool_state>;

// Read-only tools finish in moments; a worker silent for this long is
// presumed stuck in a system call and is replaced, not reused.
constexpr auto worker_timeout = std::chrono::minutes(15);

tool_executor_actor take_worker(pool_ptr self) {
  auto& st = self->state;
  if (!st.idle.empty()) {
    auto w = std::move(st.idle.back());
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

void dispatch(pool_ptr self) {
  auto& st = self->state;
  while (!st.queue.empty()) {
    auto worker = take_worker(self);
    if (!worker)
      return; // all busy: the queue waits for the next reply
    auto job = std::move(st.queue.front());
    st.queue.pop_front();
    auto promise = job.promise;
    auto call = job.req.call;
    self->request(worker, worker_timeout, std::move(job.req))
      .then(
        [self, worker, promise](tool_result& r) mutable {
          promise.deliver(std::move(r));
          self->state.idle.push_back(worker);
          dispatch(self);
        },
        [self, worker, promise, call](caf::error& err) mutable {
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
          report_tool_sample(self->state.stats, r);
          promise.deliver(std::move(r));
          dispatch(self);
        });
  }
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
    [self](tool_request& req) -> caf::result<tool_result> {
      auto t = self->state.meter.measure();
      auto promise = self->make_response_promise<tool_result>();
      self->state.queue.push_back({std::move(req), promise});
      dispatch(self);
      return promise;
    },
  };
}

} // namespace nb

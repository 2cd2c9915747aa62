#include "actors/provider/provider.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <vector>

#include <caf/all.hpp>

#include "actors/common/log.hpp"
#include "actors/common/meter.hpp"

namespace nb {

namespace {

/// Workers answer the same request as the front.
using worker_actor = provider_actor;

/// What the front and its termination hook share: the cancel flag every
/// worker's client watches, and the workers to stop. Only the front's
/// thread touches `workers`.
struct pool_handle {
  std::shared_ptr<std::atomic<bool>> stop = std::make_shared<std::atomic<bool>>(false);
  std::vector<caf::actor> workers;
};

struct worker_state {
  worker_state() = default;
  static inline const char* name = "provider_worker";
  std::unique_ptr<openai_client> client;
  actor_meter meter;
};

worker_actor::behavior_type
worker_impl(worker_actor::stateful_pointer<worker_state> self,
            provider_choice choice, client_options opts,
            std::shared_ptr<const std::atomic<bool>> stop, stats_actor stats) {
  self->state.client = std::make_unique<openai_client>(
    std::move(choice), std::move(opts), std::move(stop));
  self->state.meter.start(self, "provider_worker", stats);
  return {
    [self](model_request& req) -> model_reply {
      auto t = self->state.meter.measure();
      callbacks cb;
      if (req.stream_to) {
        auto sink = req.stream_to;
        auto id = req.request_id;
        cb.on_delta = [self, sink, id](std::string text, bool reasoning) {
          self->send(sink, model_delta{id, std::move(text), reasoning});
        };
        cb.on_retry_wait = [self, sink, id](std::string text) {
          self->send(sink, model_retry_notice{id, std::move(text)});
        };
      }
      auto reply = self->state.client->chat(req, cb);
      if (reply.finish_reason == "error")
        self->state.meter.failed();
      return reply;
    },
  };
}

/// A request waiting for a free worker.
struct pending_call {
  model_request req;
  caf::typed_response_promise<model_reply> rp;
};

struct provider_state {
  provider_state() = default;
  static inline const char* name = "provider";
  provider_choice choice;
  client_options opts;
  stats_actor stats;
  size_t max_workers = 1;
  std::shared_ptr<pool_handle> pool;
  std::vector<worker_actor> idle;
  size_t live_workers = 0;
  std::deque<pending_call> queue;
  int64_t inflight = 0;
  actor_meter meter;
};

using provider_pointer = provider_actor::stateful_pointer<provider_state>;

void report_gauges(provider_pointer self) {
  auto& st = self->state;
  if (!st.stats)
    return;
  self->send(st.stats, gauge_sample{"provider_queue",
                                    static_cast<int64_t>(st.queue.size())});
  self->send(st.stats, gauge_sample{"provider_inflight", st.inflight});
}

void report_call(provider_pointer self, const std::string& model,
                 const model_reply& r) {
  auto& st = self->state;
  if (r.finish_reason == "error")
    st.meter.failed();
  if (st.stats)
    self->send(st.stats,
               provider_sample{st.choice.name, model, r.finish_reason != "error",
                               r.attempts, r.latency_us, r.usage});
}

/// How long the front waits for a worker: the client's own wall clock plus
/// a margin; the client normally answers well before.
caf::duration call_bound(const client_options& o, bool stream) {
  auto limit = stream ? o.stream_call_timeout : o.call_timeout;
  if (limit.count() <= 0)
    limit = std::chrono::hours{24};
  return caf::duration{limit + std::chrono::seconds{30}};
}

void pump(provider_pointer self);

void run_call(provider_pointer self, worker_actor worker, pending_call call) {
  auto& st = self->state;
  ++st.inflight;
  auto model = call.req.model.empty() ? st.choice.model : call.req.model;
  auto bound = call_bound(st.opts, call.req.stream);
  self->request(worker, bound, std::move(call.req))
    .then(
      [self, worker, rp = call.rp, model](model_reply& reply) mutable {
        --self->state.inflight;
        report_call(self, model, reply);
        rp.deliver(std::move(reply));
        self->state.idle.push_back(worker);
        pump(self);
      },
      [self, worker, rp = call.rp, model](caf::error& err) mutable {
        auto& st = self->state;
        --st.inflight;
        model_reply reply;
        reply.finish_reason = "error";
        reply.error = err == caf::sec::request_timeout
                        ? "Model request failed: no answer in time."
                        : "Model request failed: the provider worker stopped.";
        report_call(self, model, reply);
        rp.deliver(std::move(reply));
        // A worker that did not answer may still be blocked: retire it.
        self->send_exit(worker, caf::exit_reason::user_shutdown);
        --st.live_workers;
        nb::log::get("provider")->warn("retired a provider worker: {}",
                                       self->system().render(err));
        pump(self);
      });
}

void pump(provider_pointer self) {
  auto& st = self->state;
  while (!st.queue.empty()) {
    worker_actor worker;
    if (!st.idle.empty()) {
      // Newest first: its keep-alive connection is the least likely stale.
      worker = st.idle.back();
      st.idle.pop_back();
    } else if (st.live_workers < st.max_workers) {
      worker = self->spawn<caf::detached>(worker_impl, st.choice, st.opts,
                                          st.pool->stop, st.stats);
      st.pool->workers.push_back(caf::actor_cast<caf::actor>(worker));
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

provider_actor::behavior_type
provider_impl(provider_pointer self, provider_choice choice,
              client_options opts, size_t max_workers, stats_actor stats) {
  auto& st = self->state;
  st.choice = std::move(choice);
  st.opts = std::move(opts);
  st.max_workers = std::max<size_t>(1, max_workers);
  st.stats = stats;
  st.pool = std::make_shared<pool_handle>();
  st.meter.start(self, "provider", stats);
  // However the front ends, its workers end too: running calls are
  // cancelled, then every worker gets an exit.
  self->attach_functor([pool = st.pool](const caf::error&) {
    pool->stop->store(true);
    for (auto& w : pool->workers)
      caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  return {
    [self](model_request& req) -> caf::result<model_reply> {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      if (!st.choice.ready()) {
        model_reply reply;
        reply.finish_reason = "error";
        reply.error = st.choice.problem;
        report_call(self, req.model, reply);
        return reply;
      }
      auto rp = self->make_response_promise<model_reply>();
      st.queue.push_back(pending_call{std::move(req), rp});
      pump(self);
      return rp;
    },
  };
}

} // namespace

provider_actor spawn_provider(caf::actor_system& sys, const settings& cfg,
                              stats_actor stats) {
  return spawn_provider(sys, cfg, std::move(stats), client_options_from(cfg));
}

provider_actor spawn_provider(caf::actor_system& sys, const settings& cfg,
                              stats_actor stats, client_options options) {
  auto choice = choose_provider(cfg);
  auto log = nb::log::get("provider");
  if (choice.ready())
    log->info("provider {} at {}, model {}, up to {} concurrent calls",
              choice.name, choice.api_base, choice.model,
              cfg.gateway.provider_workers);
  else
    log->warn("no usable provider: {}", choice.problem);
  auto workers = static_cast<size_t>(std::max(1, cfg.gateway.provider_workers));
  return sys.spawn(provider_impl, std::move(choice), std::move(options),
                   workers, std::move(stats));
}

} // namespace nb

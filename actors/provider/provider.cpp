#include "actors/provider/provider.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/common/log.hpp"
#include "actors/common/meter.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/provider/fallback.hpp"
#include "actors/provider/fallback_call.hpp"
#include "actors/provider/provider_worker.hpp"
#include "actors/provider/responses_route.hpp"
#include "config/load.hpp"
#include "config/provider_edit.hpp"
#include "messages/provider_admin.hpp"

namespace nb {

namespace {

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
  size_t live_workers = 0;
  std::deque<pending_call> queue;
  int64_t inflight = 0;
  circuit_breaker breaker{3, std::chrono::seconds{60}};
  /// Endpoints that refused the Responses API: `auto` uses Chat
  /// Completions there for a while (responses_route.hpp).
  circuit_breaker responses_breaker{responses_failure_threshold,
                                    responses_probe_interval};
  actor_meter meter;
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

void pump(provider_pointer self);

/// A worker free this long ends (its thread with it): a burst of calls
/// leaves no more threads behind than the steady load uses (the soak saw
/// the count step up and stay).
constexpr auto worker_idle_limit = std::chrono::seconds(60);

/// Stops `worker` and forgets it.
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

/// Retires the workers free for longer than worker_idle_limit.
void retire_idle(provider_pointer self) {
  auto& st = self->state;
  auto now = std::chrono::steady_clock::now();
  size_t stale = 0;
  while (stale < st.idle.size()
         && now - st.idle[stale].since >= worker_idle_limit)
    ++stale;
  for (size_t i = 0; i < stale; ++i)
    retire(self, st.idle[i].worker);
  st.idle.erase(st.idle.begin(),
                st.idle.begin() + static_cast<std::ptrdiff_t>(stale));
}

/// The cancel flag of `worker`, or null for one the pool no longer has.
std::shared_ptr<std::atomic<bool>> cancel_flag(provider_pointer self,
                                               const caf::actor_addr& worker) {
  for (auto& w : self->state.pool->workers)
    if (w.handle.address() == worker)
      return w.cancel;
  return nullptr;
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
  timed_request(self, worker, bound, std::move(req), start, std::move(open))
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
        report_call(self, c, reply);
        c.rp.deliver(std::move(reply));
        auto g = st.worker_generation.find(worker.address());
        if (g != st.worker_generation.end() && g->second == st.generation) {
          st.idle.push_back({worker, std::chrono::steady_clock::now()});
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

/// Drops the queued call `id` (answered as cancelled) or raises the cancel
/// flag of the worker running it; an unknown id has already ended.
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

/// Takes the model choice of a saved config: idle workers go (their copy
/// of the settings is old), busy ones finish their call first.
caf::result<caf::ok_atom> adopt(provider_pointer self, provider_config& pc) {
  auto& st = self->state;
  auto parsed = parse_settings(pc.config_json, pc.config_path);
  if (auto* e = std::get_if<config_error>(&parsed))
    return caf::make_error(caf::sec::runtime_error, e->message());
  adopt_model_choice(st.cfg, std::get<loaded_settings>(parsed).value);
  st.swapped = true;
  ++st.generation;
  for (auto& w : st.idle)
    retire(self, w.worker);
  st.idle.clear();
  st.breaker = circuit_breaker{st.opts.breaker_threshold,
                               st.opts.breaker_cooldown};
  st.responses_breaker =
    circuit_breaker{responses_failure_threshold, responses_probe_interval};
  auto choice = choose_provider(st.cfg);
  auto lg = nb::log::get("provider");
  if (choice.ready())
    lg->info("new provider settings: {} at {} ({} API), model {}",
             choice.name, choice.api_base, wire_api_name(choice.api),
             choice.model);
  else
    lg->warn("new provider settings, still no usable provider: {}",
             choice.problem);
  pump(self);
  return caf::ok_atom::value;
}

/// A request for the model the gateway started with means the default
/// model once the settings changed.
void follow_new_default(const provider_state& st, model_request& req) {
  if (!st.swapped || req.model != st.boot_model)
    return;
  auto asked = req.provider.empty() ? std::string{"auto"} : req.provider;
  auto boot = st.boot_provider.empty() ? std::string{"auto"} : st.boot_provider;
  if (!same_provider_name(asked, boot))
    return;
  req.model.clear();
  req.provider.clear();
}

provider_admin_actor::behavior_type
provider_impl(provider_pointer self, settings cfg, client_options opts,
              stats_actor stats) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.opts = std::move(opts);
  st.max_workers = static_cast<size_t>(std::max(1, st.cfg.gateway.provider_workers));
  st.stats = stats;
  st.pool = std::make_shared<pool_handle>();
  st.breaker = circuit_breaker{st.opts.breaker_threshold,
                               st.opts.breaker_cooldown};
  st.meter.start(self, "provider", stats);
  st.boot_model = st.cfg.agent.model;
  st.boot_provider = st.cfg.agent.provider;
  // However the front ends, its workers end too: running calls are
  // cancelled, then every worker gets an exit.
  self->attach_functor([pool = st.pool](const caf::error&) {
    for (auto& w : pool->workers)
      w.cancel->store(true);
    for (auto& w : pool->workers)
      caf::anon_send_exit(w.handle, caf::exit_reason::user_shutdown);
  });
  return {
    [self](model_request& req) -> caf::result<model_reply> {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      follow_new_default(st, req);
      // Choosing is string work on the config: cheap enough for the front.
      auto plan = plan_candidates(st.cfg, req);
      pending_call call;
      call.provider = plan[0].choice.name;
      call.model = plan[0].label;
      call.agent = req.agent;
      call.candidates = plan.size();
      if (std::none_of(plan.begin(), plan.end(),
                       [](auto& c) { return c.choice.ready(); })) {
        model_reply reply;
        reply.finish_reason = "error";
        reply.error = plan[0].choice.problem;
        report_call(self, call, reply);
        return reply;
      }
      if (plan.size() > 1) {
        call.breaker_key = plan[0].choice.name + "/" + plan[0].choice.model;
        if (st.breaker.open(call.breaker_key, circuit_breaker::clock::now()))
          call.start = 1;
      }
      for (auto& c : plan)
        if (auto key = responses_key_for(c, req);
            !key.empty()
            && st.responses_breaker.open(key, circuit_breaker::clock::now()))
          call.responses_open.push_back(std::move(key));
      call.req = std::move(req);
      call.rp = self->make_response_promise<model_reply>();
      auto rp = call.rp;
      st.queue.push_back(std::move(call));
      pump(self);
      return rp;
    },
    [self](model_cancel& c) {
      auto t = self->state.meter.measure();
      cancel_call(self, c.request_id);
    },
    [self](provider_config& pc) -> caf::result<caf::ok_atom> {
      return adopt(self, pc);
    },
    [self](provider_status_atom) -> std::string {
      return provider_status_json(self->state.cfg);
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
  auto log = nb::log::get("provider");
  auto plan = plan_candidates(cfg, model_request{});
  auto& choice = plan[0].choice;
  if (choice.ready())
    log->info("provider {} at {} ({} API), model {}, up to {} concurrent "
              "calls",
              choice.name, choice.api_base, wire_api_name(choice.api),
              choice.model, cfg.gateway.provider_workers);
  else
    log->warn("no usable provider: {}", choice.problem);
  for (size_t i = 1; i < plan.size(); ++i)
    log->info("fallback {}: {} via {}{}", i, plan[i].label,
              plan[i].choice.name,
              plan[i].choice.ready() ? "" : " (not usable: "
                                              + plan[i].choice.problem + ")");
  return caf::actor_cast<provider_actor>(
    sys.spawn(provider_impl, cfg, std::move(options), std::move(stats)));
}

} // namespace nb

#include "actors/provider/provider.hpp"

#include <algorithm>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/common/log.hpp"
#include "actors/common/stray_errors.hpp"
#include "actors/provider/fallback_call.hpp"
#include "actors/provider/provider_front.hpp"
#include "config/load.hpp"
#include "config/provider_edit.hpp"

namespace nb {

namespace {

using namespace provider_front;

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
  st.compaction_off.clear();
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
  drop_stray_errors(self, "provider", "provider");
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

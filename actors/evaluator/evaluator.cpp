#include "actors/evaluator/evaluator.hpp"

#include <algorithm>

#include <caf/actor_system.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/evaluator/decision.hpp"
#include "actors/evaluator/evaluator_prompt.hpp"

namespace nb {

namespace {

void report_usage(evaluator_pointer self, const std::string& source,
                  const token_usage& u) {
  auto& st = self->state;
  auto& total = st.usage[source];
  ++total.calls;
  total.prompt_tokens += u.prompt_tokens;
  total.completion_tokens += u.completion_tokens;
  total.total_tokens += u.total_tokens;
  if (!st.svc.stats)
    return;
  auto prefix = "usage.evaluator." + source + ".";
  self->send(st.svc.stats, gauge_sample{prefix + "calls", total.calls});
  self->send(st.svc.stats,
             gauge_sample{prefix + "prompt_tokens", total.prompt_tokens});
  self->send(st.svc.stats, gauge_sample{prefix + "completion_tokens",
                                        total.completion_tokens});
  self->send(st.svc.stats,
             gauge_sample{prefix + "total_tokens", total.total_tokens});
}

void log_verdict(evaluator_pointer self, const eval_request& rq,
                 const eval_verdict& v) {
  auto& lg = self->state.log;
  if (v.decided_by_model)
    lg->info("[{}] notify={} ({})", rq.source, v.should_notify,
             v.reason.empty() ? "no reason given" : v.reason);
  else
    lg->warn("[{}] no usable decision, using the default notify={}: {}",
             rq.source, v.should_notify, v.reason);
}

/// The verdict when no decision could be asked for: the request's default,
/// with the reason in the log.
void answer_default(evaluator_pointer self, const eval_request& rq,
                    caf::typed_response_promise<eval_verdict>& rp,
                    std::string why) {
  self->state.meter.failed();
  eval_verdict v{rq.default_notify, std::move(why), false};
  log_verdict(self, rq, v);
  rp.deliver(std::move(v));
}

/// The one model call, with the prompt read; answers `rp` in every case.
void ask_model(evaluator_pointer self, eval_request rq,
               const evaluator_prompt_choice& prompt,
               caf::typed_response_promise<eval_verdict> rp) {
  auto& st = self->state;
  if (!prompt.warning.empty())
    st.log->warn("{}", prompt.warning);
  auto model = rq.model.empty() ? st.cfg.model : rq.model;
  auto call = make_evaluation_request(rq, prompt.text, model);
  timed_request(self, st.svc.provider, st.cfg.timeout, std::move(call))
    .then(
      [=](model_reply& reply) mutable {
        report_usage(self, rq.source, reply.usage);
        auto v = decide(reply, rq.default_notify);
        log_verdict(self, rq, v);
        rp.deliver(std::move(v));
      },
      [=](caf::error& err) mutable {
        answer_default(self, rq, rp,
                       "the provider did not answer: "
                         + self->system().render(err));
      });
}

} // namespace

evaluator_config make_evaluator_config(const settings& cfg) {
  evaluator_config out;
  out.workspace = cfg.workspace_path();
  out.model = cfg.agent.model;
  out.timeout = cfg.model_request_timeout(false);
  return out;
}

evaluator_actor::behavior_type evaluator_impl(evaluator_pointer self,
                                              evaluator_config cfg,
                                              session_services svc) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.svc = std::move(svc);
  st.log = log::get("eval");
  st.meter.start(self, "evaluator", st.svc.stats);
  return {
    [=](eval_request& rq) -> caf::result<eval_verdict> {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      if (!st.svc.provider) {
        eval_verdict v{rq.default_notify, "no provider is running", false};
        log_verdict(self, rq, v);
        return v;
      }
      // The prompt file is read on a thread that exists only while it
      // does: the evaluator itself lives on the scheduler and, idle, holds
      // no thread (it is asked once per heartbeat or cron result).
      auto rp = self->make_response_promise<eval_verdict>();
      auto workspace = st.cfg.workspace;
      timed_request(self,
                    blocking_task(self, "nb.evaluator",
                                  [workspace] {
                                    return resolve_evaluator_prompt(workspace);
                                  }),
                    std::chrono::seconds(30), caf::get_atom::value)
        .then(
          [=](evaluator_prompt_choice& prompt) mutable {
            ask_model(self, std::move(rq), prompt, rp);
          },
          [=](caf::error& err) mutable {
            answer_default(self, rq, rp,
                           "the evaluator prompt could not be read: "
                             + self->system().render(err));
          });
      return rp;
    },
    [=](session_services& svc) {
      auto t = self->state.meter.measure();
      self->state.svc = std::move(svc);
    },
  };
}

evaluator_actor spawn_evaluator(caf::actor_system& sys, const settings& cfg,
                                session_services svc) {
  return sys.spawn(evaluator_impl, make_evaluator_config(cfg), std::move(svc));
}

} // namespace nb

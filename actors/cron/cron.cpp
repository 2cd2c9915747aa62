#include "actors/cron/cron.hpp"

#include <vector>

#include <caf/actor_system.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/clock.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/cron/cron_admin.hpp"
#include "actors/cron/cron_io.hpp"
#include "actors/cron/cron_ops.hpp"
#include "actors/cron/cron_tick.hpp"
#include "actors/cron/system_jobs.hpp"
#include "actors/memory/dream.hpp"

namespace nb {

namespace {

using json = nlohmann::json;
using page_promise = caf::typed_response_promise<std::string>;

/// The WebUI's "run now": the run's outcome and the job as it is after it.
void run_from_page(cron_pointer self, const std::string& id,
                   page_promise rp) {
  cron_run_now(self, id, [self, rp, id](bool ok, std::string what) mutable {
    json out{{"ok", ok}, {"text", what}};
    if (!ok)
      out["error"] = what;
    cron_io<json>(
      self,
      [id, out](cron::job_store& store) {
        auto view = out;
        for (auto& j : store.read().jobs)
          if (j.id == id)
            view["job"] = cron::job_view(j);
        return view;
      },
      [rp, out](json* view, const std::string&) mutable {
        rp.deliver((view ? *view : out)
                     .dump(-1, ' ', false, json::error_handler_t::replace));
      });
  });
}

/// The WebUI's add, update, pause, resume and remove; a change that took
/// wakes the scheduler (a new or changed job may be due before the poll).
void edit_from_page(cron_pointer self, cron_edit rq, page_promise rp) {
  auto form = json::parse(rq.form_json.empty() ? "{}" : rq.form_json, nullptr,
                          false);
  if (form.is_discarded()) {
    rp.deliver(json{{"ok", false}, {"error", "the form is not JSON"}}.dump());
    return;
  }
  auto& st = self->state;
  cron_io<json>(
    self,
    [rq, form, now = st.cfg.now_ms(), agent = st.cfg.agent](
      cron::job_store& store) {
      return cron::edit_job(store, rq.op, rq.job_id, form, now, agent);
    },
    [self, rq, rp](json* out, const std::string& why) mutable {
      if (out == nullptr) {
        rp.deliver(caf::make_error(caf::sec::runtime_error, why));
        return;
      }
      if (out->value("ok", false)) {
        self->state.log->info(
          "job {} {}: {} (from the WebUI)",
          rq.job_id.empty() ? (*out)["job"].value("id", "?") : rq.job_id,
          rq.op,
          out->contains("job") ? (*out)["job"].value("timing", "")
                               : std::string{"removed"});
        self->send(self, caf::tick_atom::value);
      }
      rp.deliver(out->dump(-1, ' ', false, json::error_handler_t::replace));
    });
}

} // namespace

inbound_msg cron_turn(const cron::job& job, int64_t now_ms,
                      const std::string& agent, int64_t slot_ms) {
  inbound_msg in;
  in.channel = job.origin_channel;
  in.chat_id = job.origin_chat_id;
  in.sender_id = "cron";
  // The job's key is the session's full key; the router puts the agent's
  // prefix back from "_agent".
  auto key = job.session_key;
  if (agent != main_agent && key.rfind(agent + ":", 0) == 0)
    key.erase(0, agent.size() + 1);
  in.session_key_override = key;
  // Our own wording: run the job now and speak to the user directly.
  in.content = "[Scheduled job] The time set for this job has come. Do it "
               "now and give the user the result directly, in their "
               "language, as a normal message. Do not describe these "
               "instructions or say that a job ran unless that is the "
               "natural way to put it.\n\nCron job: " + job.message;
  json meta = job.origin_metadata.is_object() ? job.origin_metadata
                                              : json::object();
  meta[agent_meta_key] = agent; // never the bindings' choice
  // The inbox's dedup key: one run of one job, never what the origin
  // carried (every run would look like the first one's repeat).
  meta.erase("_message_id");
  if (slot_ms > 0)
    meta["_message_id"] = "cron:" + job.id + ":" + std::to_string(slot_ms);
  meta["_cron_trigger"] = {{"job_id", job.id},
                           {"job_name", job.name},
                           {"run_at_ms", now_ms}};
  in.metadata_json = meta.dump(-1, ' ', false, json::error_handler_t::replace);
  return in;
}

cron_admin_actor::behavior_type cron_impl(cron_pointer self, cron_config cfg,
                                          stats_actor stats,
                                          provider_actor provider) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  if (!st.cfg.now_ms)
    st.cfg.now_ms = unix_ms;
  st.store = std::make_shared<cron::job_store>(st.cfg.workspace + "/cron");
  st.stats = std::move(stats);
  st.provider = std::move(provider);
  st.log = log::get("cron");
  st.meter.start(self, "cron", st.stats);
  // A Dream worker that ended (normally or not) is answered through its
  // request; any other abnormal exit stops the scheduler.
  self->set_exit_handler([self](caf::exit_msg& em) {
    auto& st = self->state;
    if (st.dream_workers.erase(em.source) > 0) {
      if (em.reason)
        st.log->error("the Dream run died: {}",
                      self->system().render(em.reason));
      return;
    }
    if (em.reason)
      self->quit(em.reason);
  });
  // The first file work: every tick and edit comes after it.
  cron_io<bool>(
    self,
    [cfg = st.cfg, log = st.log](cron::job_store& store) {
      std::vector<std::string> notes;
      auto err = cron::reconcile_system_jobs(
        store, cfg.system_jobs, cfg.retired_system_jobs, cfg.now_ms(), &notes);
      for (auto& n : notes)
        log->warn("{}", n);
      if (!err.empty())
        log->error("cannot register the system jobs: {}", err);
      for (auto& j : cfg.system_jobs)
        log->info("system job '{}' registered for agent {} ({})", j.name,
                  cfg.agent, cron::describe_timing(j));
      for (auto& id : cfg.retired_system_jobs)
        if (id == "dream")
          if (auto e = skip_dream_backlog(cfg.workspace); !e.empty())
            log->error("Dream is off, but its cursor could not be moved "
                       "past the history written meanwhile: {}", e);
      return true;
    },
    [self](bool*, const std::string& why) {
      if (!why.empty())
        self->state.log->error("cannot register the system jobs: {}", why);
    });
  return {
    guard("cron", [=](caf::tick_atom) {
      auto t = self->state.meter.measure();
      cron_tick(self);
    }),
    [=](router_actor& router) {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      bool first = !st.router;
      st.router = std::move(router);
      if (first && st.router) {
        st.log->info("scheduler started ({}/cron/jobs.json)",
                     st.cfg.workspace);
        self->send(self, caf::tick_atom::value);
      }
    },
    [=](session_services& svc) {
      auto t = self->state.meter.measure();
      self->state.provider = std::move(svc.provider);
    },
    [=](cron_run_atom, std::string& id) -> caf::result<std::string> {
      auto t = self->state.meter.measure();
      auto rp = self->make_response_promise<std::string>();
      cron_run_now(self, id, [rp](bool, std::string what) mutable {
        rp.deliver(std::move(what));
      });
      return rp;
    },
    // -- the WebUI's questions and changes
    guard("cron", [=](cron_jobs_atom) -> caf::result<std::string> {
      auto t = self->state.meter.measure();
      auto rp = self->make_response_promise<std::string>();
      cron_io<std::string>(
        self, [](cron::job_store& store) { return cron::jobs_json(store); },
        [rp](std::string* text, const std::string& why) mutable {
          if (text)
            rp.deliver(std::move(*text));
          else
            rp.deliver(caf::make_error(caf::sec::runtime_error, why));
        });
      return rp;
    }),
    guard("cron", [=](cron_edit& rq) -> caf::result<std::string> {
      auto t = self->state.meter.measure();
      auto rp = self->make_response_promise<std::string>();
      if (rq.op == "run")
        run_from_page(self, rq.job_id, rp);
      else
        edit_from_page(self, std::move(rq), rp);
      return rp;
    }),
  };
}

cron_admin_actor spawn_cron(caf::actor_system& sys, cron_config cfg,
                            stats_actor stats, provider_actor provider) {
  return sys.spawn(cron_impl, std::move(cfg), std::move(stats),
                   std::move(provider));
}

} // namespace nb

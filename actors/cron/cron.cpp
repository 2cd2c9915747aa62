#include "actors/cron/cron.hpp"

#include <algorithm>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/blocking_task.hpp"
#include "actors/common/clock.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/cron/cron_admin.hpp"
#include "actors/cron/cron_ops.hpp"
#include "actors/cron/system_jobs.hpp"
#include "actors/memory/dream.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// Sleeps until the next job or the next poll, whichever comes first.
void arm(cron_pointer self, int64_t now) {
  auto& st = self->state;
  auto delay = st.cfg.poll;
  if (st.next_wake_ms) {
    auto until = std::chrono::milliseconds(std::max<int64_t>(
      *st.next_wake_ms - now, 10));
    delay = std::min(delay, until);
  }
  self->delayed_send(self, delay, caf::tick_atom::value);
  st.timer_armed = true;
}

/// Journals one job's turn and waits for the receipt (the cron actor is
/// detached: blocking here holds no scheduler thread). False when the inbox
/// refused it or did not answer: the job stays due.
bool journal_turn(cron_pointer self, const cron::job& j, int64_t now,
                  int64_t slot) {
  auto& st = self->state;
  caf::scoped_actor waiter{self->system()};
  bool ok = false;
  waiter
    ->request(st.cfg.inbox, st.cfg.journal_timeout,
              inbox_record{cron_turn(j, now, st.cfg.agent, slot)})
    .receive(
      [&](inbox_receipt& r) {
        ok = true;
        if (r.duplicate)
          st.log->info("job '{}' ({}) was journaled before a restart; not "
                       "running it twice", j.name, j.id);
        else
          st.log->info("running job '{}' ({}) in session {}", j.name, j.id,
                       j.session_key);
      },
      [&](caf::error& e) {
        st.log->warn("job '{}' ({}) could not be journaled ({}); trying "
                     "again shortly", j.name, j.id, self->system().render(e));
      });
  return ok;
}

/// A job that is a chat turn: not a system job, and bound to a session (a
/// keyless one never becomes a turn in a session with key ":").
bool is_turn(const cron::job& j) {
  return j.payload_kind != "system_event" && !j.session_key.empty();
}

/// Runs one job whose run is recorded (or that `cron_run_atom` asks for
/// now) where it belongs, unless it is a journaled turn (the inbox delivers
/// those); `done` gets what happened.
void run_recorded(cron_pointer self, const cron::job& j, int64_t now,
                  std::function<void(std::string)> done) {
  auto& st = self->state;
  if (j.payload_kind == "system_event") {
    run_system_job(self, j, std::move(done));
  } else if (j.session_key.empty()) {
    done("job '" + j.name + "' (" + j.id + ") skipped: it is bound to no "
         "chat session (recreate it from a chat)");
  } else {
    st.log->info("running job '{}' ({}) in session {}", j.name, j.id,
                 j.session_key);
    self->send(st.router, cron_turn(j, now, st.cfg.agent));
    done("job '" + j.name + "' sent to session " + j.session_key);
  }
}

void tick(cron_pointer self) {
  auto& st = self->state;
  auto now = st.cfg.now_ms();
  auto stamp = st.store->stamp();
  bool due = st.next_wake_ms && *st.next_wake_ms <= now;
  if (stamp != st.seen_stamp || due) {
    bool refused = false;
    bool journal = static_cast<bool>(st.cfg.inbox);
    // Only chat turns go through the inbox; system jobs and keyless jobs
    // are handed on (true) and run below, once their run is recorded.
    cron::fire_fn fire = [&](const cron::job& j, int64_t slot) {
      if (!journal || !is_turn(j))
        return true;
      bool ok = journal_turn(self, j, now, slot);
      refused = refused || !ok;
      return ok;
    };
    auto r = cron::take_due(*st.store, now, st.cfg.grace_ms, fire);
    for (auto& n : r.notes)
      st.log->warn("{}", n);
    if (!r.error.empty()) {
      // The run state could not be saved: running now could repeat the
      // jobs after a restart (journaled ones are recognised). Try again at
      // the next tick.
      st.log->error("cannot save the cron store: {}", r.error);
    } else {
      st.next_wake_ms = r.next_wake_ms;
      st.seen_stamp = st.store->stamp();
      auto log = st.log;
      for (auto& j : r.due)
        if (!journal || !is_turn(j))
          run_recorded(self, j, now,
                       [log](std::string what) { log->info("{}", what); });
    }
    if (refused) // the refused jobs are still due: not at once again
      st.next_wake_ms = now + 1000;
  }
  arm(self, now);
}

/// Runs job `id` now, outside its schedule, and records the run; `done`
/// gets whether it went on its way and what happened.
void run_now(cron_pointer self, const std::string& id,
             std::function<void(bool, std::string)> done) {
  auto& st = self->state;
  auto list = st.store->read();
  auto it = std::find_if(list.jobs.begin(), list.jobs.end(),
                         [&](const cron::job& j) { return j.id == id; });
  if (it == list.jobs.end()) {
    done(false, "Job " + id + " not found");
    return;
  }
  if (it->payload_kind != "system_event" && !st.router) {
    done(false, "the scheduler has no router yet");
    return;
  }
  auto now = st.cfg.now_ms();
  auto record = [self, id, now](bool ok, const std::string& what) {
    auto& st = self->state;
    auto err = cron::record_run(*st.store, id, now, ok ? "ok" : "error",
                                ok ? "" : what);
    if (!err.empty())
      st.log->error("cannot record the run of job {}: {}", id, err);
  };
  if (st.cfg.inbox && is_turn(*it)) { // a run of its own: slot = now
    bool ok = journal_turn(self, *it, now, now);
    auto what = ok ? "job '" + it->name + "' journaled for session "
                       + it->session_key
                   : "job '" + it->name + "' could not be journaled";
    record(ok, what);
    done(ok, what);
    return;
  }
  bool keyless = it->payload_kind != "system_event" && !is_turn(*it);
  auto log = st.log;
  run_recorded(self, *it, now,
               [log, record, keyless, done](std::string what) {
                 log->info("{}", what);
                 record(!keyless, what);
                 done(!keyless, std::move(what));
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
  if (!deterministic_scheduler(self->system())) // else: the test's thread
    name_thread("nb.cron");
  auto& st = self->state;
  st.cfg = std::move(cfg);
  if (!st.cfg.now_ms)
    st.cfg.now_ms = unix_ms;
  st.store = std::make_unique<cron::job_store>(st.cfg.workspace + "/cron");
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
  {
    std::vector<std::string> notes;
    auto err = cron::reconcile_system_jobs(
      *st.store, st.cfg.system_jobs, st.cfg.retired_system_jobs,
      st.cfg.now_ms(), &notes);
    for (auto& n : notes)
      st.log->warn("{}", n);
    if (!err.empty())
      st.log->error("cannot register the system jobs: {}", err);
    for (auto& j : st.cfg.system_jobs)
      st.log->info("system job '{}' registered for agent {} ({})", j.name,
                   st.cfg.agent, cron::describe_timing(j));
    for (auto& id : st.cfg.retired_system_jobs)
      if (id == "dream")
        if (auto e = skip_dream_backlog(st.cfg.workspace); !e.empty())
          st.log->error("Dream is off, but its cursor could not be moved "
                        "past the history written meanwhile: {}", e);
  }
  return {
    [=](caf::tick_atom) {
      auto t = self->state.meter.measure();
      try {
        tick(self);
      } catch (const std::exception& e) {
        // A store surprise must not end scheduling for good.
        self->state.log->error("cron tick failed: {}", e.what());
        arm(self, self->state.cfg.now_ms());
      }
    },
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
      run_now(self, id, [rp](bool, std::string what) mutable {
        rp.deliver(std::move(what));
      });
      return rp;
    },
    // -- the WebUI's questions and changes
    [=](cron_jobs_atom) -> caf::result<std::string> {
      auto t = self->state.meter.measure();
      try {
        return cron::jobs_json(*self->state.store);
      } catch (const std::exception& e) {
        return caf::make_error(caf::sec::runtime_error, e.what());
      }
    },
    [=](cron_edit& rq) -> caf::result<std::string> {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      if (rq.op == "run") {
        auto rp = self->make_response_promise<std::string>();
        auto id = rq.job_id;
        run_now(self, id, [self, rp, id](bool ok, std::string what) mutable {
          json out{{"ok", ok}, {"text", what}};
          if (!ok)
            out["error"] = what;
          for (auto& j : self->state.store->read().jobs)
            if (j.id == id)
              out["job"] = cron::job_view(j);
          rp.deliver(out.dump(-1, ' ', false,
                              json::error_handler_t::replace));
        });
        return rp;
      }
      try {
        auto form = json::parse(rq.form_json.empty() ? "{}" : rq.form_json,
                                nullptr, false);
        if (form.is_discarded())
          return json{{"ok", false}, {"error", "the form is not JSON"}}
            .dump();
        auto out = cron::edit_job(*st.store, rq.op, rq.job_id, form,
                                  st.cfg.now_ms(), st.cfg.agent);
        if (out.value("ok", false)) {
          st.log->info("job {} {}: {} (from the WebUI)",
                       rq.job_id.empty() ? out["job"].value("id", "?")
                                         : rq.job_id,
                       rq.op, out.contains("job")
                                ? out["job"].value("timing", "")
                                : std::string{"removed"});
          // Wake now: a new or changed job may be due before the next poll.
          self->send(self, caf::tick_atom::value);
        }
        return out.dump(-1, ' ', false, json::error_handler_t::replace);
      } catch (const std::exception& e) {
        return caf::make_error(caf::sec::runtime_error, e.what());
      }
    },
  };
}

cron_admin_actor spawn_cron(caf::actor_system& sys, cron_config cfg,
                            stats_actor stats, provider_actor provider) {
  return spawn_blocking(sys, cron_impl, std::move(cfg), std::move(stats),
                        std::move(provider));
}

} // namespace nb

#include "actors/cron/cron.hpp"

#include <algorithm>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/log.hpp"
#include "actors/cron/cron_ops.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

int64_t system_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

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

void tick(cron_pointer self) {
  auto& st = self->state;
  auto now = st.cfg.now_ms();
  auto stamp = st.store->stamp();
  bool due = st.next_wake_ms && *st.next_wake_ms <= now;
  if (stamp != st.seen_stamp || due) {
    bool refused = false;
    cron::fire_fn fire;
    if (st.cfg.inbox)
      fire = [&](const cron::job& j, int64_t slot) {
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
      if (!fire)
        for (auto& j : r.due) {
          st.log->info("running job '{}' ({}) in session {}", j.name, j.id,
                       j.session_key);
          self->send(st.router, cron_turn(j, now, st.cfg.agent));
        }
    }
    if (refused) // the refused jobs are still due: not at once again
      st.next_wake_ms = now + 1000;
  }
  arm(self, now);
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

cron_actor::behavior_type cron_impl(cron_pointer self, cron_config cfg,
                                    stats_actor stats) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  if (!st.cfg.now_ms)
    st.cfg.now_ms = system_now_ms;
  st.store = std::make_unique<cron::job_store>(st.cfg.workspace + "/cron");
  st.stats = std::move(stats);
  st.log = log::get("cron");
  st.meter.start(self, "cron", st.stats);
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
  };
}

cron_actor spawn_cron(caf::actor_system& sys, cron_config cfg,
                      stats_actor stats) {
  return sys.spawn<caf::detached>(cron_impl, std::move(cfg), std::move(stats));
}

} // namespace nb

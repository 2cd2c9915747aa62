#include "actors/cron/cron_tick.hpp"

#include <algorithm>
#include <vector>

#include <caf/all.hpp>

#include "actors/common/own_timer.hpp"
#include "actors/cron/cron_admin.hpp"
#include "actors/cron/cron_io.hpp"
#include "actors/cron/cron_ops.hpp"
#include "actors/cron/system_jobs.hpp"

namespace nb {

namespace {

/// What a job's turn needs to be journaled, copied for the task's thread.
struct cron_journal {
  caf::actor_system* sys = nullptr;
  inbox_actor inbox;
  std::chrono::seconds timeout{30};
  std::string agent;
  std::shared_ptr<spdlog::logger> log;
};

cron_journal journal_of(cron_pointer self) {
  auto& st = self->state;
  return {&self->system(), st.cfg.inbox, st.cfg.journal_timeout, st.cfg.agent,
          st.log};
}

/// Journals one job's turn and waits for the receipt (on a blocking task's
/// thread). False when the inbox refused it or did not answer: the job
/// stays due.
bool journal_turn(const cron_journal& jr, const cron::job& j, int64_t now,
                  int64_t slot) {
  caf::scoped_actor waiter{*jr.sys};
  bool ok = false;
  waiter
    ->request(jr.inbox, jr.timeout,
              inbox_record{cron_turn(j, now, jr.agent, slot)})
    .receive(
      [&](inbox_receipt& r) {
        ok = true;
        if (r.duplicate)
          jr.log->info("job '{}' ({}) was journaled before a restart; not "
                       "running it twice", j.name, j.id);
        else
          jr.log->info("running job '{}' ({}) in session {}", j.name, j.id,
                       j.session_key);
      },
      [&](caf::error& e) {
        jr.log->warn("job '{}' ({}) could not be journaled ({}); trying "
                     "again shortly", j.name, j.id, jr.sys->render(e));
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

/// What a tick's file work found.
struct tick_found {
  bool looked = false; ///< the store changed or a job was due
  std::string stamp;   ///< the store as read
  cron::tick_result r;
  bool refused = false; ///< the inbox refused a turn: it is still due
};

void record_in_store(cron_pointer self, const std::string& id, int64_t now,
                     bool ok, const std::string& what,
                     std::function<void()> then) {
  auto log = self->state.log;
  cron_io<std::string>(
    self,
    [id, now, ok, what](cron::job_store& store) {
      return cron::record_run(store, id, now, ok ? "ok" : "error",
                              ok ? "" : what);
    },
    [log, id, then](std::string* err, const std::string& why) {
      auto problem = err ? *err : why;
      if (!problem.empty())
        log->error("cannot record the run of job {}: {}", id, problem);
      then();
    });
}

} // namespace

void cron_arm(cron_pointer self, int64_t now) {
  auto& st = self->state;
  auto delay = st.cfg.poll;
  if (st.next_wake_ms) {
    auto until = std::chrono::milliseconds(std::max<int64_t>(
      *st.next_wake_ms - now, 10));
    delay = std::min(delay, until);
  }
  auto gen = ++st.timer_gen;
  run_at(self, self->clock().now() + delay, [self, gen] {
    if (gen == self->state.timer_gen)
      cron_tick(self);
  });
}

void cron_tick(cron_pointer self) {
  auto& st = self->state;
  auto now = st.cfg.now_ms();
  bool due = st.next_wake_ms && *st.next_wake_ms <= now;
  auto jr = journal_of(self);
  cron_io<tick_found>(
    self,
    [now, due, seen = st.seen_stamp, grace = st.cfg.grace_ms,
     jr](cron::job_store& store) {
      tick_found f;
      f.stamp = store.stamp();
      if (f.stamp == seen && !due)
        return f;
      f.looked = true;
      // Only chat turns go through the inbox; system jobs and keyless jobs
      // are handed on (true) and run in the actor, once their run is
      // recorded.
      cron::fire_fn fire = [&](const cron::job& j, int64_t slot) {
        if (!jr.inbox || !is_turn(j))
          return true;
        bool ok = journal_turn(jr, j, now, slot);
        f.refused = f.refused || !ok;
        return ok;
      };
      f.r = cron::take_due(store, now, grace, fire);
      if (f.r.error.empty())
        f.stamp = store.stamp();
      return f;
    },
    [self, now, journal = static_cast<bool>(jr.inbox)](
      tick_found* f, const std::string& why) {
      auto& st = self->state;
      if (f == nullptr) {
        // A store surprise must not end scheduling for good.
        st.log->error("cron tick failed: {}", why);
      } else if (f->looked) {
        for (auto& n : f->r.notes)
          st.log->warn("{}", n);
        if (!f->r.error.empty()) {
          // The run state could not be saved: running now could repeat the
          // jobs after a restart (journaled ones are recognised). Try
          // again at the next tick.
          st.log->error("cannot save the cron store: {}", f->r.error);
        } else {
          st.next_wake_ms = f->r.next_wake_ms;
          st.seen_stamp = f->stamp;
          auto log = st.log;
          for (auto& j : f->r.due)
            if (!journal || !is_turn(j))
              run_recorded(self, j, now,
                           [log](std::string what) { log->info("{}", what); });
        }
        if (f->refused) // the refused jobs are still due: not at once again
          st.next_wake_ms = now + 1000;
      }
      cron_arm(self, now);
    });
}

void cron_run_now(cron_pointer self, const std::string& id,
                  std::function<void(bool, std::string)> done) {
  auto& st = self->state;
  auto now = st.cfg.now_ms();
  struct found {
    bool exists = false;
    cron::job job;
    bool journaled = false; ///< a journaled turn: ok and what are set
    bool ok = false;
    std::string what;
  };
  auto jr = journal_of(self);
  bool routed = static_cast<bool>(st.router);
  cron_io<found>(
    self,
    [id, now, jr, routed](cron::job_store& store) {
      found f;
      auto list = store.read();
      auto it = std::find_if(list.jobs.begin(), list.jobs.end(),
                             [&](const cron::job& j) { return j.id == id; });
      if (it == list.jobs.end())
        return f;
      f.exists = true;
      f.job = *it;
      if (!jr.inbox || !is_turn(*it) || !routed)
        return f;
      f.journaled = true; // a run of its own: slot = now
      f.ok = journal_turn(jr, *it, now, now);
      f.what = f.ok ? "job '" + it->name + "' journaled for session "
                        + it->session_key
                    : "job '" + it->name + "' could not be journaled";
      auto err = cron::record_run(store, id, now, f.ok ? "ok" : "error",
                                  f.ok ? "" : f.what);
      if (!err.empty())
        jr.log->error("cannot record the run of job {}: {}", id, err);
      return f;
    },
    [self, id, now, done](found* f, const std::string& why) {
      auto& st = self->state;
      if (f == nullptr) {
        done(false, "cannot read the jobs: " + why);
        return;
      }
      if (!f->exists) {
        done(false, "Job " + id + " not found");
        return;
      }
      if (f->job.payload_kind != "system_event" && !st.router) {
        done(false, "the scheduler has no router yet");
        return;
      }
      if (f->journaled) {
        done(f->ok, f->what);
        return;
      }
      bool keyless = f->job.payload_kind != "system_event" && !is_turn(f->job);
      auto log = st.log;
      run_recorded(self, f->job, now,
                   [self, log, id, now, keyless, done](std::string what) {
                     log->info("{}", what);
                     record_in_store(self, id, now, !keyless, what,
                                     [done, keyless, what] {
                                       done(!keyless, what);
                                     });
                   });
    });
}

} // namespace nb

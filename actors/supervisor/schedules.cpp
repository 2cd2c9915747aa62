#include "actors/supervisor/schedules.hpp"

#include <algorithm>
#include <chrono>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>

#include "actors/common/clock.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/cron/cron.hpp"
#include "actors/cron/system_jobs.hpp"
#include "actors/heartbeat/heartbeat.hpp"
#include "messages/stats.hpp"

namespace nb {

namespace {

/// The owner renews three times per TTL; a gateway on standby also looks at
/// least every 2 s, so an orderly hand-over (the owner releases the lease)
/// takes effect at once even with a long TTL.
std::chrono::milliseconds renew_every(const schedules_state& st) {
  auto every = std::max<int64_t>(st.lease.ttl_ms / 3, 200);
  if (!st.running)
    every = std::min<int64_t>(every, 2000);
  return std::chrono::milliseconds(every);
}

void report(schedules_pointer self) {
  auto& st = self->state;
  if (st.links.svc.stats)
    self->send(st.links.svc.stats,
               gauge_sample{"schedules_owner", st.running ? 1 : 0});
}

/// One agent's cron and heartbeat (its workspace, its sessions).
void start_agent_schedules(schedules_pointer self, const std::string& id) {
  auto& st = self->state;
  auto& sys = self->system();
  auto view = st.cfg.for_agent(id);
  auto who = id == main_agent ? std::string{} : " (agent " + id + ")";
  heartbeat_actor hb;
  if (view.gateway.heartbeat.enabled) {
    auto hc = make_heartbeat_config(view);
    // This agent's cron job "heartbeat" brings the beats, as in the
    // original, so a home shared with it keeps one schedule.
    hc.own_timer = false;
    st.log->info("Heartbeat{}: every {}s", who, hc.interval.count());
    heartbeat_links hl{st.links.router, st.links.svc.store,
                       st.links.evaluator, st.links.svc.outbox,
                       st.links.svc.stats};
    hb = spawn_heartbeat(sys, std::move(hc), std::move(hl));
    self->link_to(hb);
    st.heartbeats[id] = hb;
  } else {
    st.log->info("Heartbeat{}: disabled", who);
  }
  // Its cron registers its Dream and heartbeat jobs in its own store and
  // runs them on its own workspace and heartbeat.
  cron_config cc;
  cc.workspace = view.workspace_path();
  cc.agent = id;
  cc.inbox = st.links.inbox;
  plan_system_jobs(view, cc);
  cc.heartbeat = hb;
  const auto& dream = view.agent.dream;
  st.log->info("Dream{}: {}", who,
               !dream.enabled ? std::string{"disabled"}
               : dream.cron.empty()
                 ? "every " + std::to_string(dream.interval_h) + "h"
                 : "cron " + dream.cron + " (legacy)");
  auto cron = spawn_cron(sys, std::move(cc), st.links.svc.stats,
                         st.links.svc.provider);
  self->link_to(cron);
  self->send(cron, st.links.router);
  st.crons[id] = cron;
}

void start_schedules(schedules_pointer self) {
  auto& st = self->state;
  for (const auto& id : st.cfg.agent_ids())
    start_agent_schedules(self, id);
  st.running = true;
  st.last_holder.clear();
  st.log->info("this gateway ({}) owns the schedules lease: cron{} run here",
               st.lease.owner,
               st.heartbeats.empty() ? "" : " and the heartbeat");
}

/// Stops cron and the heartbeat without taking this actor down with them.
void stop_schedules(schedules_pointer self, const std::string& why) {
  auto& st = self->state;
  st.log->warn("{}: cron and the heartbeat stop in this gateway", why);
  auto stop = [&](caf::actor a) {
    if (a) {
      self->unlink_from(a);
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
  };
  for (auto& [id, cron] : st.crons)
    stop(caf::actor_cast<caf::actor>(cron));
  for (auto& [id, hb] : st.heartbeats)
    stop(caf::actor_cast<caf::actor>(hb));
  st.crons.clear();
  st.heartbeats.clear();
  st.running = false;
}

void on_lease(schedules_pointer self, bool held, const std::string& holder,
              int64_t left_ms) {
  auto& st = self->state;
  if (held) {
    st.renewed_at = self->clock().now();
    if (!st.running)
      start_schedules(self);
  } else {
    if (st.running)
      stop_schedules(self, "the schedules lease is now held by '" + holder
                             + "'");
    if (holder != st.last_holder) {
      st.last_holder = holder;
      st.log->warn("the schedules lease is held by '{}' (another gateway on "
                   "this session store; it lapses in {} ms unless renewed): "
                   "cron and the heartbeat stay off in this gateway ({}) "
                   "until then",
                   holder, left_ms, st.lease.owner);
    }
  }
  report(self);
}

void renew(schedules_pointer self) {
  auto& st = self->state;
  self->delayed_send(self, renew_every(st), caf::tick_atom::value);
  if (!st.links.leases) {
    st.log->error("no lease keeper: cron and the heartbeat cannot start");
    return;
  }
  timed_request(self, st.links.leases, renew_every(st), lease_atom::value,
                std::string{schedules_lease}, st.lease.owner, st.lease.ttl_ms)
    .then(
      [=](bool held, std::string& holder, int64_t left_ms) {
        on_lease(self, held, holder, left_ms);
      },
      [=](caf::error& err) {
        auto& st = self->state;
        st.log->warn("cannot renew the schedules lease: {}",
                     self->system().render(err));
        // Past the TTL another gateway may hold it: stop to be safe.
        // The actor's clock: simulated under the deterministic scheduler.
        if (st.running
            && self->clock().now() - st.renewed_at
                 >= std::chrono::milliseconds(st.lease.ttl_ms))
          stop_schedules(self, "the schedules lease could not be renewed "
                               "within its TTL");
        report(self);
      });
}

} // namespace

std::string default_lease_owner() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0)
    host[0] = '\0';
  return std::string{host[0] ? host : "localhost"} + ":"
         + std::to_string(::getpid());
}

schedules_actor::behavior_type schedules_impl(schedules_pointer self,
                                              settings cfg,
                                              schedules_config lease,
                                              schedules_links links) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.lease = std::move(lease);
  st.links = std::move(links);
  st.log = log::get("schedules");
  st.meter.start(self, "schedules", st.links.svc.stats);
  // An orderly stop hands the lease on at once instead of after its TTL.
  self->attach_functor([leases = st.links.leases, owner = st.lease.owner] {
    if (leases)
      caf::anon_send(leases, unlease_atom::value, std::string{schedules_lease},
                     owner);
  });
  self->send(self, caf::tick_atom::value);
  return {
    [=](caf::tick_atom) {
      auto t = self->state.meter.measure();
      renew(self);
    },
    [=](cron_owner_atom, const std::string& agent)
      -> caf::result<cron_admin_actor> {
      auto& st = self->state;
      if (auto it = st.crons.find(agent); it != st.crons.end())
        return it->second;
      auto ids = st.cfg.agent_ids();
      if (std::find(ids.begin(), ids.end(), agent) == ids.end())
        return caf::make_error(caf::sec::runtime_error,
                               "no agent named \"" + agent + "\"");
      return caf::make_error(
        caf::sec::runtime_error,
        st.running ? "agent " + agent + " has no scheduler"
                   : "cron does not run in this gateway: the schedules lease "
                     "is held by '" + st.last_holder
                       + "' (another gateway on this session store)");
    },
    [=](session_services& svc) {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      st.links.svc = svc;
      for (auto& [id, cron] : st.crons)
        self->send(cron, svc);
      for (auto& [id, hb] : st.heartbeats)
        self->send(hb, svc);
    },
  };
}

} // namespace nb

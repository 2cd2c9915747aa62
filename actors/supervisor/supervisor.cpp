#include "actors/supervisor/supervisor.hpp"
#include "actors/supervisor/config_watch.hpp"

#include <caf/actor_registry.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include "actors/channels/manager/manager.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/evaluator/evaluator.hpp"
#include "actors/inbox/inbox.hpp"
#include "actors/provider/provider.hpp"
#include "actors/router/router.hpp"
#include "actors/stats/stats.hpp"
#include "actors/store/pg_store.hpp"
#include "actors/store/session_store.hpp"
#include "actors/subagents/subagents.hpp"
#include "actors/tools/tools_front.hpp"
#include "config/load.hpp"
#include "messages/session_admin.hpp"

namespace nb {

namespace {

// Store workers do little but fsync; a few cover many sessions.
constexpr int store_workers = 4;

// Services are linked to the supervisor: a crash reaches its exit handler,
// and its own exit takes every service down with it.
void spawn_services(supervisor_pointer self) {
  auto& st = self->state;
  auto& sys = self->system();
  if (!st.svc.stats) {
    st.svc.stats = spawn_stats(sys);
    self->link_to(st.svc.stats);
  }
  if (!st.svc.store) {
    st.svc.store = st.store_dsn.empty()
                     ? spawn_store(sys, st.sessions_dir, store_workers,
                                   st.svc.stats)
                     : spawn_pg_store(sys, st.store_dsn, store_workers,
                                      st.svc.stats);
    self->link_to(st.svc.store);
  }
  if (!st.svc.provider) {
    st.svc.provider = spawn_provider(sys, st.cfg, st.svc.stats);
    self->link_to(st.svc.provider);
    // Settings saved from the WebUI since the start: first in its mailbox.
    if (st.provider_override)
      caf::anon_send(caf::actor_cast<provider_admin_actor>(st.svc.provider),
                     *st.provider_override);
  }
  if (!st.svc.tools) {
    st.svc.tools = spawn_tools(sys, st.cfg, st.svc.stats);
    self->link_to(st.svc.tools);
    if (st.tools_override)
      caf::anon_send(caf::actor_cast<tools_admin_actor>(st.svc.tools),
                     *st.tools_override);
  }
}

/// The subagent manager: started once the entry router exists (results
/// are announced through it, like any inbound message); the routers learn
/// the new services.
void spawn_subagents(supervisor_pointer self) {
  auto& st = self->state;
  if (st.svc.subagents || !st.entry)
    return;
  auto scfg = make_session_config(st.cfg);
  st.svc.subagents = self->spawn(
    subagents_impl,
    make_subagent_config(st.cfg, scfg.model_timeout, scfg.tool_timeout),
    st.svc.provider, st.svc.tools, st.svc.stats);
  self->link_to(st.svc.subagents);
  self->send(st.svc.subagents, caf::actor_cast<inbound_sink>(st.entry));
  self->send(st.router, st.svc);
  if (st.entry != st.router)
    self->send(st.entry, st.svc);
}

/// Names `who` in the actor registry (for the WebUI's API) until this
/// supervisor ends; a restarted one takes the name over.
template <class Handle>
void publish(supervisor_pointer self, caf::atom_value name, const Handle& who) {
  auto& reg = self->system().registry();
  auto ptr = caf::actor_cast<caf::strong_actor_ptr>(who);
  reg.put(name, ptr);
  self->attach_functor([&reg, name, me = ptr->address()](const caf::error&) {
    auto held = reg.get(name);
    if (held && held->address() == me)
      reg.erase(name);
  });
}

/// Gateway only: the notification gate, and the schedules (cron and the
/// heartbeat) that run only while this gateway holds their lease.
void spawn_background(supervisor_pointer self) {
  auto& st = self->state;
  if (!st.background || !st.entry)
    return;
  auto& sys = self->system();
  if (!st.evaluator) {
    st.evaluator = spawn_evaluator(sys, st.cfg, st.svc);
    self->link_to(st.evaluator);
  }
  if (!st.schedules) {
    schedules_links links{st.entry, st.svc, st.evaluator, st.leases,
                          st.inbox};
    st.schedules = self->spawn(schedules_impl, st.cfg, st.schedules_cfg,
                               std::move(links));
    self->link_to(st.schedules);
    publish(self, schedules_atom::value, st.schedules);
  }
}

/// Everyone who holds the services learns the restarted ones.
void hand_out_services(supervisor_pointer self) {
  auto& s = self->state;
  self->send(s.router, s.svc);
  if (s.entry && s.entry != s.router)
    self->send(s.entry, s.svc);
  if (s.evaluator)
    self->send(s.evaluator, s.svc);
  if (s.schedules)
    self->send(s.schedules, s.svc);
}

/// The channel manager takes the router's inbound and the sessions'
/// outbound traffic; the router learns the new outbox.
void spawn_channels(supervisor_pointer self) {
  auto& st = self->state;
  if (!st.with_channels || st.channels || !st.entry)
    return;
  st.channels = spawn_channel_manager(self->system(), st.cfg, st.entry,
                                      st.svc.stats, st.inbox);
  self->link_to(st.channels);
  st.svc.outbox = caf::actor_cast<outbound_sink>(st.channels);
  self->send(st.router, st.svc);
  if (st.entry != st.router)
    self->send(st.entry, st.svc);
}

/// Gateway only: the durable inbox goes in front of the entry, so every
/// source (channels, the API, cron, the heartbeat, subagents) is journaled
/// before a session sees it; sessions learn where to settle.
void spawn_inbox_front(supervisor_pointer self) {
  auto& st = self->state;
  if (!st.background || st.inbox || !st.entry)
    return;
  inbox_config icfg;
  icfg.dir = st.cfg.config_dir() + "/inbox";
  icfg.max_bytes = st.cfg.gateway.inbox.max_bytes;
  st.inbox = spawn_inbox(self->system(), std::move(icfg), st.entry,
                         st.svc.stats);
  self->link_to(st.inbox);
  st.svc.inbox = st.inbox;
  st.entry = st.inbox;
  self->send(st.router, st.svc);
}

/// Clears the handle of the service that went down; returns its name.
template <class Handle>
bool drop_if(Handle& h, const caf::actor_addr& who) {
  if (h && h.address() == who) {
    h = nullptr;
    return true;
  }
  return false;
}

/// New provider settings: the running provider takes them first; once it
/// has, they are kept here too and handed to a provider this supervisor
/// restarts (which starts from the start-up settings, like the sessions).
caf::result<caf::ok_atom> swap_provider(supervisor_pointer self,
                                        provider_config& pc) {
  auto parsed = parse_settings(pc.config_json, pc.config_path);
  if (auto* e = std::get_if<config_error>(&parsed))
    return caf::make_error(caf::sec::runtime_error, e->message());
  if (!self->state.svc.provider)
    return caf::make_error(caf::sec::runtime_error,
                           "the provider is restarting; try again");
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto provider
    = caf::actor_cast<provider_admin_actor>(self->state.svc.provider);
  timed_request(self, provider, std::chrono::seconds(10), pc)
    .then(
      [self, rp, pc](caf::ok_atom) mutable {
        self->state.provider_override = pc;
        rp.deliver(caf::ok_atom::value);
      },
      [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

/// New tools settings: the gateway's tools front takes them first; then the
/// router hands them to every agent's front, and they are kept for fronts
/// started later.
caf::result<caf::ok_atom> swap_tools(supervisor_pointer self,
                                     tools_config& tc) {
  auto parsed = parse_settings(tc.config_json, tc.config_path);
  if (auto* e = std::get_if<config_error>(&parsed))
    return caf::make_error(caf::sec::runtime_error, e->message());
  if (!self->state.svc.tools)
    return caf::make_error(caf::sec::runtime_error,
                           "the tools are restarting; try again");
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto tools = caf::actor_cast<tools_admin_actor>(self->state.svc.tools);
  timed_request(self, tools, std::chrono::seconds(10), tc)
    .then(
      [self, rp, tc, whitelist = std::get<loaded_settings>(parsed)
                                   .value.tools.ssrf_whitelist](
        caf::ok_atom) mutable {
        self->state.tools_override = tc;
        if (auto router =
              caf::actor_cast<session_router_actor>(self->state.router))
          caf::anon_send(router, tc);
        // The channels that fetch reply links take the new whitelist (a
        // restarted manager starts with it).
        self->state.cfg.tools.ssrf_whitelist = std::move(whitelist);
        if (auto channels = caf::actor_cast<channel_manager_admin_actor>(
              self->state.channels))
          caf::anon_send(channels, channel_tools_atom::value, tc.config_json);
        rp.deliver(caf::ok_atom::value);
      },
      [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

/// Gateway only, when it was started from a file: hand edits of it apply
/// as a WebUI save does.
void spawn_config_watch_of(supervisor_pointer self) {
  auto& st = self->state;
  if (st.cfg.config_path.empty())
    return;
  st.config_watch = spawn_config_watch(
    self->system(), caf::actor_cast<supervisor_admin_actor>(self),
    st.cfg.config_path);
  self->link_to(st.config_watch);
}

} // namespace

supervisor_admin_actor::behavior_type supervisor_impl(supervisor_pointer self,
                                                settings cfg,
                                                std::string sessions_dir,
                                                int64_t started_at_us,
                                                supervisor_options opts) {
  auto& st = self->state;
  st.background = opts.background;
  st.with_channels = opts.background;
  st.cfg = std::move(cfg);
  st.sessions_dir = std::move(sessions_dir);
  st.store_dsn = std::move(opts.store_dsn);
  st.leases = std::move(opts.leases);
  st.schedules_cfg = std::move(opts.schedules);
  spawn_services(self);
  auto scfg = make_session_config(st.cfg);
  scfg.started_at_us = started_at_us;
  // The release-capable router: a cluster front may move its keys away.
  st.router = self->spawn(member_router_impl, scfg, st.svc,
                          make_agent_plan(st.cfg, scfg));
  self->link_to(st.router);
  st.entry = st.router;
  if (opts.entry) {
    // A cluster gateway's front: like the router, the process ends with it.
    st.entry = opts.entry(self->system(), st.router, st.svc);
    self->link_to(st.entry);
  }
  spawn_inbox_front(self);
  spawn_subagents(self);
  // Channels first: the heartbeat delivers through their outbox.
  spawn_channels(self);
  spawn_background(self);
  if (st.background) {
    // The WebUI's setup finds the gateway's provider settings here.
    publish(self, supervisor_atom::value, self);
    // Its automations, skills and memory pages ask the owners: the router
    // for the agents' workspace actors, the schedules for their cron.
    publish(self, agent_files_atom::value, st.router);
    // Its sessions page asks the router too (session_router_actor).
    publish(self, sessions_atom::value, st.router);
    spawn_config_watch_of(self);
  }
  self->set_exit_handler([=](caf::exit_msg& em) {
    auto& s = self->state;
    auto lg = log::get("supervisor");
    // Which one: the inbox's end read "the router died" once, and the
    // search for the cause started at the wrong actor.
    const char* died = s.router && s.router.address() == em.source ? "router"
                       : s.inbox && s.inbox.address() == em.source
                         ? "inbox"
                         : "entry";
    if (drop_if(s.router, em.source) || drop_if(s.entry, em.source)
        || drop_if(s.inbox, em.source)) {
      lg->critical("the {} died ({}); stopping", died,
                   self->system().render(em.reason));
      self->quit(em.reason);
      return;
    }
    if (drop_if(s.config_watch, em.source)) {
      if (em.reason == caf::make_error(caf::exit_reason::user_shutdown))
        return;
      lg->error("the config.json watch died ({}); restarting it",
                self->system().render(em.reason));
      spawn_config_watch_of(self);
      return;
    }
    if (drop_if(s.channels, em.source)) {
      s.svc.outbox = nullptr;
      if (em.reason == caf::make_error(caf::exit_reason::user_shutdown))
        return; // shutting down: no restart
      ++s.restarts;
      lg->error("the channel manager died ({}); restarting it (restart #{})",
                self->system().render(em.reason), s.restarts);
      spawn_channels(self);
      if (s.schedules)
        self->send(s.schedules, s.svc);
      return;
    }
    bool service = drop_if(s.svc.stats, em.source)
                   || drop_if(s.svc.store, em.source)
                   || drop_if(s.svc.provider, em.source)
                   || drop_if(s.svc.tools, em.source)
                   || drop_if(s.svc.subagents, em.source)
                   || drop_if(s.evaluator, em.source)
                   || drop_if(s.schedules, em.source);
    if (!service) {
      // Not a child: an orderly shutdown request. Linked children follow.
      self->quit(em.reason);
      return;
    }
    ++s.restarts;
    lg->error("a service actor died ({}); restarting it (restart #{})",
              self->system().render(em.reason), s.restarts);
    spawn_services(self);
    if (s.svc.subagents)
      self->send(s.svc.subagents, s.svc.provider, s.svc.tools, s.svc.stats);
    spawn_subagents(self); // a restarted manager starts empty
    hand_out_services(self);
    spawn_background(self);
  });
  return {
    [=](caf::get_atom) -> caf::result<router_actor, session_services> {
      return {self->state.entry, self->state.svc};
    },
    [=](provider_config& pc) -> caf::result<caf::ok_atom> {
      return swap_provider(self, pc);
    },
    [=](tools_config& tc) -> caf::result<caf::ok_atom> {
      return swap_tools(self, tc);
    },
    [=](provider_status_atom) -> caf::result<std::string> {
      if (!self->state.svc.provider)
        return caf::make_error(caf::sec::runtime_error,
                               "the provider is restarting");
      return self->delegate(
        caf::actor_cast<provider_admin_actor>(self->state.svc.provider),
        provider_status_atom::value);
    },
  };
}

} // namespace nb

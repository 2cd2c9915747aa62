#include "actors/supervisor/supervisor.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/common/log.hpp"
#include "actors/provider/provider.hpp"
#include "actors/router/router.hpp"
#include "actors/stats/stats.hpp"
#include "actors/store/session_store.hpp"
#include "actors/tools/tools_front.hpp"

namespace nb {

namespace {

// Store workers do little but fsync; a few cover many sessions.
constexpr int store_workers = 4;

void spawn_services(supervisor_pointer self) {
  auto& st = self->state;
  auto& sys = self->system();
  if (!st.svc.stats) {
    st.svc.stats = spawn_stats(sys);
    self->monitor(st.svc.stats);
  }
  if (!st.svc.store) {
    st.svc.store = spawn_store(sys, st.sessions_dir, store_workers, st.svc.stats);
    self->monitor(st.svc.store);
  }
  if (!st.svc.provider) {
    st.svc.provider = spawn_provider(sys, st.cfg, st.svc.stats);
    self->monitor(st.svc.provider);
  }
  if (!st.svc.tools) {
    st.svc.tools = spawn_tools(sys, st.cfg, st.svc.stats);
    self->monitor(st.svc.tools);
  }
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

} // namespace

supervisor_actor::behavior_type supervisor_impl(supervisor_pointer self,
                                                settings cfg,
                                                std::string sessions_dir,
                                                int64_t started_at_us) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.sessions_dir = std::move(sessions_dir);
  spawn_services(self);
  auto scfg = make_session_config(st.cfg);
  scfg.started_at_us = started_at_us;
  st.router = self->spawn(router_impl, scfg, st.svc);
  self->monitor(st.router);
  // Everything we spawned ends with us: an exit reaches the services too.
  self->attach_functor([=](const caf::error& reason) {
    auto& s = self->state;
    for (auto a : {caf::actor_cast<caf::actor>(s.router),
                   caf::actor_cast<caf::actor>(s.svc.tools),
                   caf::actor_cast<caf::actor>(s.svc.provider),
                   caf::actor_cast<caf::actor>(s.svc.store),
                   caf::actor_cast<caf::actor>(s.svc.stats)})
      if (a)
        caf::anon_send_exit(a, reason ? reason : caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& s = self->state;
    auto lg = log::get("supervisor");
    if (drop_if(s.router, dm.source)) {
      lg->critical("the router died ({}); stopping", self->system().render(dm.reason));
      self->quit(dm.reason);
      return;
    }
    bool known = drop_if(s.svc.stats, dm.source) || drop_if(s.svc.store, dm.source)
                 || drop_if(s.svc.provider, dm.source)
                 || drop_if(s.svc.tools, dm.source);
    if (!known)
      return;
    ++s.restarts;
    lg->error("a service actor died ({}); restarting it (restart #{})",
              self->system().render(dm.reason), s.restarts);
    spawn_services(self);
    self->send(s.router, s.svc);
  });
  return {
    [=](caf::get_atom) -> caf::result<router_actor, session_services> {
      return {self->state.router, self->state.svc};
    },
  };
}

} // namespace nb

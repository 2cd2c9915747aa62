#include "actors/router/router.hpp"

#include <memory>
#include <tuple>

#include <caf/event_based_actor.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/stray_errors.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/router/memory_trim.hpp"
#include "actors/router/router_admin.hpp"
#include "actors/store/memory_store.hpp"
#include "actors/tools/tools_front.hpp"
#include "actors/workspace/workspace.hpp"

namespace nb {

namespace {

template <class Self>
void report_live(Self self) {
  if (self->state.svc.stats)
    self->send(self->state.svc.stats,
               gauge_sample{"sessions_live",
                            static_cast<int64_t>(self->state.sessions.size())});
}

/// `agent`'s workspace actor, spawned on first use (`agent` is main or a
/// listed one).
template <class Self>
workspace_admin_actor files_for(Self self, const std::string& agent) {
  auto& st = self->state;
  auto slot = st.plan.agents.find(agent);
  auto& files = st.agent_files[agent];
  if (!files) {
    auto fc = slot != st.plan.agents.end()
                ? slot->second.files
                : workspace_config{
                  main_agent,
                  st.cfg.workspace,
                  {false, {}, st.cfg.disabled_skills, st.cfg.config_dir}};
    files = spawn_workspace(self->system(), std::move(fc), st.svc.stats);
    self->link_to(files); // it ends with us; its crash reaches the exit handler
  }
  return files;
}

/// The settings and services of `agent`'s sessions: main's, or a listed
/// agent's with its own tools (spawned on first use).
template <class Self>
std::pair<session_config, session_services>
agent_setup(Self self, const std::string& agent) {
  auto& st = self->state;
  auto slot = st.plan.agents.find(agent);
  bool listed = slot != st.plan.agents.end();
  auto svc = st.svc;
  svc.workspace = files_for(self, agent);
  if (!listed)
    return {st.cfg, std::move(svc)};
  auto& tools = st.agent_tools[agent];
  if (!tools) {
    tools = spawn_tools(self->system(), *slot->second.view, st.svc.stats);
    self->link_to(tools);
    if (st.tools_override) // the WebUI changed them since the start
      caf::anon_send(caf::actor_cast<tools_admin_actor>(tools),
                     *st.tools_override);
  }
  svc.tools = tools;
  return {slot->second.cfg, std::move(svc)};
}

template <class Self>
router_state::entry& session_for(Self self, const std::string& key,
                                 const std::string& agent, bool temporary) {
  auto& st = self->state;
  auto i = st.sessions.find(key);
  if (i != st.sessions.end())
    return i->second;
  auto [cfg, svc] = agent_setup(self, agent);
  caf::actor memory;
  if (temporary) {
    // A temporary chat's transcript lives in a store of its own, in
    // memory, that ends with the session (attached below).
    cfg.temporary = true;
    auto mem = self->spawn(memory_store_impl);
    svc.store = mem;
    memory = caf::actor_cast<caf::actor>(mem);
  }
  auto s = self->spawn(session_impl, key, std::move(cfg), std::move(svc),
                       caf::actor_cast<router_actor>(self));
  if (memory)
    caf::actor_cast<caf::strong_actor_ptr>(s)->get()->attach_functor(
      [memory](const caf::error&) {
        caf::anon_send_exit(memory, caf::exit_reason::user_shutdown);
      });
  // Linked, so that the router's exit ends every session; monitored, so
  // that a session that dies is forgotten and re-created from disk.
  self->link_to(s);
  self->monitor(s);
  auto& e = st.sessions[key];
  e.session = s;
  report_live(self);
  return e;
}

/// Forgets the agent's actor in `actors` that went down (the next session
/// of that agent gets a fresh one); false when it is none of them.
template <class Self, class Map>
bool forget_agent_actor(Self self, Map& actors, const caf::exit_msg& em,
                        const char* what) {
  for (auto& [agent, a] : actors)
    if (a && a.address() == em.source) {
      log::get("router")->error("agent {}'s {} died: {}", agent, what,
                                self->system().render(em.reason));
      a = nullptr;
      return true;
    }
  return false;
}

/// Stops the session at `i` and forgets it (it saved everything it got).
template <class Self, class Iterator>
void retire_session(Self self, Iterator i) {
  auto s = i->second.session;
  self->state.sessions.erase(i);
  self->demonitor(s.address());
  self->unlink_from(s);
  self->send_exit(s, caf::exit_reason::user_shutdown);
  report_live(self);
  note_freed(self->state.trimmer);
}

/// Sets the router up and returns its handlers, for either interface.
template <class Self>
auto router_handlers(Self self, session_config cfg, session_services svc,
                     agent_plan plan) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.svc = std::move(svc);
  st.plan = std::move(plan);
  st.meter.start(self, "router", st.svc.stats);
  st.trimmer = self->template spawn<caf::linked>(
    memory_trimmer, st.svc.stats, std::chrono::seconds(60));
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& sessions = self->state.sessions;
    for (auto i = sessions.begin(); i != sessions.end(); ++i) {
      if (i->second.session.address() == dm.source) {
        if (dm.reason && dm.reason != caf::exit_reason::user_shutdown)
          log::get("router")->error("[{}] session actor died: {}", i->first,
                                    self->system().render(dm.reason));
        if (!i->second.exited)
          self->state.departed.insert(dm.source);
        sessions.erase(i);
        report_live(self);
        return;
      }
    }
  });
  drop_stray_errors(self, "router", "router");
  self->set_exit_handler([=](caf::exit_msg& em) {
    for (auto& [key, e] : self->state.sessions)
      if (e.session.address() == em.source) {
        e.exited = true;
        return; // a session died: the down handler forgets it
      }
    if (self->state.departed.erase(em.source) > 0)
      return; // a session died and the down handler forgot it already
    // An agent's tools or workspace actor (linked): the agent's next
    // session gets a fresh one.
    if (forget_agent_actor(self, self->state.agent_tools, em, "tools")
        || forget_agent_actor(self, self->state.agent_files, em,
                              "workspace actor"))
      return;
    if (em.source == self->state.trimmer.address()) {
      self->state.trimmer = nullptr; // trims stop; the gateway goes on
      return;
    }
    self->quit(em.reason); // the supervisor is stopping us
  });
  return std::make_tuple(
    guard("router",
          [=](inbound_msg& in) {
            auto t = self->state.meter.measure();
            auto& st = self->state;
            resolve_agent(in, st.plan.bindings);
            auto agent = agent_of(in);
            if (!agent.empty() && agent != main_agent
                && !st.plan.agents.count(agent)) {
              log::get("router")->warn("message for unknown agent '{}' goes "
                                       "to main", agent);
              set_agent(in, main_agent);
              agent = main_agent;
            }
            // agents.defaults.unifiedSession: every chat without a key of
            // its own talks in one session (replies still go back to the
            // chat each message came from).
            if (st.cfg.unified_session && in.session_key_override.empty()
                && !is_temporary(in))
              in.session_key_override = unified_session_key;
            auto key = routed_session_key(in);
            if (st.draining && !st.sessions.count(key)) {
              // Stopping: it starts nothing now; the inbox journal keeps
              // it for the next start.
              log::get("router")->info("[{}] the gateway is stopping: a "
                                       "new message waits for the next "
                                       "start", key);
              return;
            }
            auto& e = session_for(self, key,
                                  agent.empty() ? main_agent : agent,
                                  is_temporary(in));
            ++e.forwarded;
            self->send(e.session, std::move(in));
          }),
    [=](session_idle& idle) {
      auto t = self->state.meter.measure();
      auto& sessions = self->state.sessions;
      auto i = sessions.find(idle.key);
      // Only when the session has seen everything we sent it may it go.
      if (i == sessions.end() || i->second.forwarded != idle.received
          || i->second.session.address() != self->current_sender())
        return;
      retire_session(self, i);
    },
    [=](session_services& svc) {
      auto t = self->state.meter.measure();
      self->state.svc = std::move(svc);
    },
    [=](live_sessions_atom) {
      return static_cast<int32_t>(self->state.sessions.size());
    },
    [=](flush_atom) -> caf::result<int32_t> {
      // Answers once every session has finished its running turn; from now
      // on no new turn starts (the gateway is stopping).
      self->state.draining = true;
      auto& sessions = self->state.sessions;
      auto count = static_cast<int32_t>(sessions.size());
      if (count == 0)
        return int32_t{0};
      auto rp = self->template make_response_promise<int32_t>();
      auto pending = std::make_shared<int32_t>(count);
      for (auto& [key, e] : sessions)
        timed_request(self, e.session, std::chrono::seconds(60),
                      flush_atom::value)
          .then([=](bool) mutable { if (--*pending == 0) rp.deliver(count); },
                [=](caf::error&) mutable { if (--*pending == 0) rp.deliver(count); });
      return rp;
    });
}

} // namespace

router_actor::behavior_type router_impl(router_pointer self, session_config cfg,
                                        session_services svc,
                                        agent_plan plan) {
  return std::apply(
    [](auto... hs) { return router_actor::behavior_type{std::move(hs)...}; },
    router_handlers(self, std::move(cfg), std::move(svc), std::move(plan)));
}

session_router_actor::behavior_type
member_router_impl(member_router_pointer self, session_config cfg,
                   session_services svc, agent_plan plan) {
  auto files = [=](workspace_owner_atom, const std::string& agent)
    -> caf::result<workspace_admin_actor> {
    if (agent != main_agent && !self->state.plan.agents.count(agent))
      return caf::make_error(caf::sec::runtime_error,
                             "no agent named \"" + agent + "\"");
    return files_for(self, agent);
  };
  auto release = [=](session_release& rel) {
    // The cluster moved this key elsewhere; the gateway sends this only
    // once the key's turns here have ended, so nothing is cut short.
    auto t = self->state.meter.measure();
    auto& sessions = self->state.sessions;
    auto i = sessions.find(rel.key);
    if (i != sessions.end())
      retire_session(self, i);
  };
  auto tools_reload = [=](tools_config& tc) {
    auto t = self->state.meter.measure();
    self->state.tools_override = tc;
    for (auto& [agent, tools] : self->state.agent_tools)
      if (tools)
        caf::anon_send(caf::actor_cast<tools_admin_actor>(tools), tc);
  };
  auto handlers
    = router_handlers(self, std::move(cfg), std::move(svc), std::move(plan));
  return std::apply(
    [&](auto... hs) {
      return std::apply(
        [&](auto... admin) {
          return session_router_actor::behavior_type{
            std::move(hs)..., std::move(release), std::move(files),
            std::move(admin)..., std::move(tools_reload)};
        },
        std::make_tuple(
          guard("router",
                [=](session_catalog_request& m) {
                  return catalog_for_webui(self, m);
                }),
          guard("router",
                [=](session_load& m) { return transcript_for_webui(self, m); }),
          guard("router",
                [=](session_admin& a) { return change_session(self, a); })));
    },
    std::move(handlers));
}

} // namespace nb

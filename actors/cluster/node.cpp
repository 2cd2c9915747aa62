#include "actors/cluster/node.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/router/router.hpp"
#include "actors/stats/process.hpp"

namespace nb {

namespace {

/// A fresh router: sessions cached under a previous gateway may be stale,
/// because the gateway re-homed their keys while this node was away.
void reset_router(node_pointer self) {
  auto& st = self->state;
  if (st.role != "agent")
    return;
  if (st.router) {
    self->unlink_from(st.router);
    self->send_exit(st.router, caf::exit_reason::user_shutdown);
  }
  st.router = self->spawn(member_router_impl, st.scfg, st.svc, st.plan);
  self->link_to(st.router);
}

void apply_welcome(node_pointer self, node_welcome& w) {
  auto& st = self->state;
  st.svc.store = std::move(w.store);
  st.svc.outbox = std::move(w.outbox);
  st.svc.inbox = std::move(w.inbox);
  auto tools = w.tools ? std::move(w.tools) : st.local_tools;
  if (st.role == "agent" && tools.address() != st.svc.tools.address())
    log::get("cluster")->info("node {} runs tool calls {}", st.id,
                              tools.address() != st.local_tools.address()
                                ? "on a tools node"
                                : "locally");
  st.svc.tools = std::move(tools);
  if (st.router)
    self->send(st.router, st.svc);
}

void retry_later(node_pointer self, const std::string& why) {
  auto& st = self->state;
  st.joining = false;
  // Say it once per outage, not every second.
  if (st.failures++ == 0)
    log::get("cluster")->warn("node {}: {}; retrying every second", st.id,
                              why);
  self->delayed_send(self, std::chrono::seconds(1), connect_atom::value);
}

void join(node_pointer self, cluster_front_actor front) {
  auto& st = self->state;
  self->monitor(front);
  st.front = front;
  node_join j{st.id, st.role, st.address, node_actor{self}, st.router,
              st.role == "tools" ? st.local_tools : tools_actor{}};
  timed_request(self, front, st.timeout, std::move(j))
    .then(
      [=](node_welcome& w) {
        auto& st = self->state;
        // Services first: the gateway routes here only after node_ready,
        // so the router has the store before its first message.
        apply_welcome(self, w);
        self->send(st.front, node_ready{st.id});
        st.joining = false;
        st.failures = 0;
        log::get("cluster")->info("node {} joined gateway {} as {}", st.id,
                                  w.gateway_id, st.role);
      },
      [=](caf::error& err) {
        auto& st = self->state;
        self->demonitor(st.front.address());
        st.front = nullptr;
        retry_later(self, "the gateway refused to join ("
                            + self->system().render(err) + ")");
      });
}

/// Asks the connector for the gateway's front and joins it, unless a join
/// is under way or done.
void start_joining(node_pointer self) {
  auto& st = self->state;
  if (st.joining || st.front)
    return;
  st.joining = true;
  timed_request(self, st.connector, std::chrono::seconds(60),
                connect_atom::value)
    .then([=](cluster_front_actor& f) { join(self, std::move(f)); },
          [=](caf::error& err) {
            retry_later(self, self->system().render(err));
          });
}

caf::result<node_status> status(node_pointer self) {
  auto& st = self->state;
  auto proc = read_process_figures();
  node_status s;
  s.node_id = st.id;
  s.role = st.role;
  s.address = st.address;
  s.rss_bytes = proc.rss_bytes;
  s.actors = static_cast<int64_t>(self->system().registry().running());
  s.mailbox = static_cast<int64_t>(self->mailbox().size());
  s.uptime_s = (now_us() - st.started_us) / 1000000;
  if (!st.router)
    return s;
  auto rp = self->make_response_promise<node_status>();
  timed_request(self, st.router, std::chrono::seconds(2),
                live_sessions_atom::value)
    .then([=](int32_t n) mutable {
            auto out = s;
            out.sessions = n;
            rp.deliver(out);
          },
          [=](caf::error&) mutable { rp.deliver(s); });
  return rp;
}

} // namespace

node_actor::behavior_type node_impl(node_pointer self, std::string id,
                                    std::string role, std::string address,
                                    settings cfg, cluster_settings ccfg,
                                    session_services svc,
                                    connector_actor connector) {
  auto& st = self->state;
  st.id = std::move(id);
  st.role = std::move(role);
  st.address = std::move(address);
  st.timeout = std::chrono::seconds(ccfg.request_timeout_s);
  st.scfg = make_session_config(cfg);
  st.plan = make_agent_plan(cfg, st.scfg);
  st.svc = std::move(svc);
  st.local_tools = st.svc.tools;
  st.connector = std::move(connector);
  st.started_us = now_us();
  st.meter.start(self, "cluster_node", st.svc.stats);
  self->link_to(st.connector);
  reset_router(self);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    if (!st.front || dm.source != st.front.address())
      return;
    log::get("cluster")->warn("node {} lost the gateway ({}); dropping its "
                              "sessions and rejoining", st.id,
                              self->system().render(dm.reason));
    st.front = nullptr;
    reset_router(self);
    self->send(self, connect_atom::value);
  });
  self->set_exit_handler([=](caf::exit_msg& em) {
    auto& st = self->state;
    if (st.router && em.source == st.router.address()) {
      log::get("cluster")->error("node {}: the router died ({}); starting a "
                                 "new one", st.id,
                                 self->system().render(em.reason));
      st.router = nullptr;
      reset_router(self);
      return;
    }
    self->quit(em.reason);
  });
  return {
    [=](connect_atom) { start_joining(self); },
    [=](connect_atom, std::string& address) {
      // Published on a port the OS picked: the address the gateway shows.
      self->state.address = std::move(address);
      start_joining(self);
    },
    [=](node_welcome& w) {
      auto t = self->state.meter.measure();
      apply_welcome(self, w);
    },
    [=](node_status_atom) -> caf::result<node_status> {
      auto t = self->state.meter.measure();
      return status(self);
    },
  };
}

} // namespace nb

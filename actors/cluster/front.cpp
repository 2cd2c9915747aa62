#include "actors/cluster/front.hpp"

#include <memory>

#include <caf/event_based_actor.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/session.hpp"
#include "actors/stats/process.hpp"

namespace nb {

namespace {

node_welcome welcome_for(front_pointer self) {
  auto& st = self->state;
  node_welcome w;
  w.gateway_id = st.id;
  w.store = st.svc.store;
  w.outbox = st.svc.outbox;
  w.inbox = st.svc.inbox;
  for (auto& [id, m] : st.members)
    if (m.info.role == "tools" && m.info.up && m.ready && m.tools) {
      w.tools = m.tools;
      break;
    }
  return w;
}

/// Tells every agent about a changed service (a tools node came or went).
void push_welcome(front_pointer self) {
  auto w = welcome_for(self);
  for (auto& [id, m] : self->state.members)
    if (m.info.role == "agent" && m.info.up && m.node)
      self->send(m.node, w);
}

node_status own_status(front_pointer self) {
  auto& st = self->state;
  auto proc = read_process_figures();
  node_status s;
  s.node_id = st.id;
  s.role = "gateway";
  s.address = st.address;
  s.rss_bytes = proc.rss_bytes;
  s.actors = static_cast<int64_t>(self->system().registry().running());
  s.mailbox = static_cast<int64_t>(self->mailbox().size());
  s.uptime_s = (now_us() - st.started_us) / 1000000;
  for (auto& [key, ks] : st.keys)
    s.sessions += ks.homed && ks.home.empty() ? 1 : 0;
  return s;
}

void node_gone(front_pointer self, const std::string& id) {
  auto& st = self->state;
  auto i = st.members.find(id);
  if (i == st.members.end() || !i->second.info.up)
    return;
  auto& m = i->second;
  m.info.up = false;
  bool was_ready = m.ready;
  m.ready = false;
  log::get("cluster")->warn("node {} ({}, {}) is down", id, m.info.role,
                            m.info.address);
  if (m.info.role == "agent")
    recover_node(self, id);
  else if (m.info.role == "tools" && was_ready)
    push_welcome(self);
}

caf::result<node_welcome> on_join(front_pointer self, node_join& j) {
  auto& st = self->state;
  auto lg = log::get("cluster");
  if (j.node_id.empty() || (j.role != "agent" && j.role != "tools"))
    return caf::make_error(caf::sec::invalid_argument,
                           "a node joins with a node id and the role agent or "
                           "tools");
  if (j.role == "agent" && !j.router)
    return caf::make_error(caf::sec::invalid_argument,
                           "an agent node joins with its router");
  if (auto i = st.members.find(j.node_id);
      i != st.members.end() && i->second.info.up) {
    // The same id again: the old process is gone even if its connection
    // has not timed out yet (a restart faster than the heartbeat).
    lg->warn("node {} joined again: its previous process is taken as dead",
             j.node_id);
    node_gone(self, j.node_id);
  }
  front_state::member m;
  m.info.node_id = j.node_id;
  m.info.role = j.role;
  m.info.address = j.address;
  m.node = j.node;
  m.router = j.router;
  m.tools = j.tools;
  self->monitor(m.node);
  st.members[j.node_id] = std::move(m);
  lg->info("node {} joined as {} from {}", j.node_id, j.role, j.address);
  return welcome_for(self);
}

void on_ready(front_pointer self, const node_ready& r) {
  auto& st = self->state;
  auto i = st.members.find(r.node_id);
  if (i == st.members.end() || !i->second.info.up || i->second.ready)
    return;
  i->second.ready = true;
  if (i->second.info.role == "agent") {
    st.ring.add(r.node_id);
    log::get("cluster")->info("agent node {} takes its share of sessions "
                              "({} agent node(s))", r.node_id, st.ring.size());
    // Keys move lazily: a key whose owner changed moves with its next
    // message, once its old home has finished what it was doing.
  } else {
    push_welcome(self);
  }
}

caf::result<std::vector<node_status>> cluster_status(front_pointer self) {
  auto& st = self->state;
  auto out = std::make_shared<std::vector<node_status>>();
  out->push_back(own_status(self));
  std::vector<std::pair<std::string, node_actor>> ask;
  for (auto& [id, m] : st.members) {
    if (m.info.up)
      ask.emplace_back(id, m.node);
    else
      out->push_back(m.info);
  }
  if (ask.empty())
    return std::move(*out);
  auto rp = self->make_response_promise<std::vector<node_status>>();
  auto left = std::make_shared<size_t>(ask.size());
  auto timeout = std::chrono::seconds(std::min(st.cfg.request_timeout_s, 5));
  for (auto& entry : ask) {
    auto id = entry.first;
    timed_request(self, entry.second, timeout, node_status_atom::value)
      .then(
        [=](node_status& s) mutable {
          out->push_back(std::move(s));
          if (--*left == 0)
            rp.deliver(std::move(*out));
        },
        [=](caf::error&) mutable {
          // Up as far as the link knows, but not answering: report that.
          if (auto i = self->state.members.find(id);
              i != self->state.members.end()) {
            auto s = i->second.info;
            s.up = false;
            out->push_back(std::move(s));
          }
          if (--*left == 0)
            rp.deliver(std::move(*out));
        });
  }
  return rp;
}

} // namespace

cluster_front_actor::behavior_type
front_impl(front_pointer self, std::string id, cluster_settings cfg,
           session_services svc, member_router_actor local) {
  auto& st = self->state;
  st.id = std::move(id);
  st.address = cfg.listen;
  st.ring = hash_ring{cfg.virtual_nodes};
  st.cfg = std::move(cfg);
  st.svc = std::move(svc);
  st.local = std::move(local);
  st.started_us = now_us();
  st.meter.start(self, "cluster_front", st.svc.stats);
  self->set_down_handler([=](caf::down_msg& dm) {
    for (auto& [mid, m] : self->state.members)
      if (m.info.up && m.node && m.node.address() == dm.source) {
        log::get("cluster")->debug("node {} down: {}", mid,
                                   self->system().render(dm.reason));
        node_gone(self, mid);
        return;
      }
  });
  return {
    [=](inbound_msg& in) {
      auto t = self->state.meter.measure();
      auto key = routed_session_key(in);
      self->state.keys[key].waiting.push_back(std::move(in));
      pump(self, key);
    },
    [=](session_idle&) {
      // Sessions talk to their own node's router; nothing to do here.
    },
    [=](session_services& s) {
      auto t = self->state.meter.measure();
      self->state.svc = std::move(s);
      push_welcome(self);
    },
    [=](live_sessions_atom) {
      int32_t n = 0;
      for (auto& [key, ks] : self->state.keys)
        n += ks.homed ? 1 : 0;
      return n;
    },
    [=](flush_atom) -> caf::result<int32_t> {
      // Answers once every node's router has no turn running.
      auto& st = self->state;
      std::vector<member_router_actor> routers{st.local};
      for (auto& [mid, m] : st.members)
        if (m.info.up && m.router)
          routers.push_back(m.router);
      auto rp = self->make_response_promise<int32_t>();
      auto left = std::make_shared<size_t>(routers.size());
      auto total = std::make_shared<int32_t>(0);
      for (auto& r : routers)
        timed_request(self, r, std::chrono::seconds(60), flush_atom::value)
          .then(
            [=](int32_t n) mutable {
              *total += n;
              if (--*left == 0)
                rp.deliver(*total);
            },
            [=](caf::error&) mutable {
              if (--*left == 0)
                rp.deliver(*total);
            });
      return rp;
    },
    [=](node_join& j) -> caf::result<node_welcome> {
      auto t = self->state.meter.measure();
      return on_join(self, j);
    },
    [=](node_ready& r) {
      auto t = self->state.meter.measure();
      on_ready(self, r);
    },
    [=](relay_done& d) {
      auto t = self->state.meter.measure();
      settle(self, d);
    },
    [=](cluster_status_atom) -> caf::result<std::vector<node_status>> {
      return cluster_status(self);
    },
  };
}

} // namespace nb

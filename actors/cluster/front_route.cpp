#include "actors/cluster/front.hpp"

#include "actors/cluster/relay.hpp"
#include "actors/common/log.hpp"

namespace nb {

namespace {

/// The router serving node `id` ("" = the gateway's own), or null when the
/// node is not (or no longer) routable.
member_router_actor router_of(front_pointer self, const std::string& id) {
  if (id.empty())
    return self->state.local;
  auto i = self->state.members.find(id);
  if (i == self->state.members.end() || !i->second.ready || !i->second.info.up)
    return member_router_actor{};
  return i->second.router;
}

/// Where `key` belongs now: its ring owner, or the gateway itself while no
/// agent node is up.
std::string owner_of(front_pointer self, const std::string& key) {
  return self->state.ring.owner(key).value_or("");
}

void send_to_home(front_pointer self, const std::string& key,
                  front_state::key_state& ks, inbound_msg msg) {
  auto& st = self->state;
  auto seq = ++st.next_seq;
  auto relay = self->spawn(relay_impl, msg.reply_to, st.svc.outbox,
                           cluster_front_actor{self}, key, seq);
  front_state::pending p{seq, msg, caf::actor_cast<caf::actor>(relay)};
  msg.reply_to = relay;
  ks.inflight.push_back(std::move(p));
  self->send(router_of(self, ks.home), std::move(msg));
}

} // namespace

void pump(front_pointer self, const std::string& key) {
  auto& st = self->state;
  auto& ks = st.keys[key];
  while (ks.ph == front_state::phase::normal && !ks.waiting.empty()) {
    auto owner = owner_of(self, key);
    if (!ks.homed || ks.home != owner) {
      if (ks.homed && router_of(self, ks.home)) {
        // Its old home must finish what it has before the new one reads
        // the session from the store; then it forgets the session.
        if (!ks.inflight.empty()) {
          ks.ph = front_state::phase::draining;
          return;
        }
        self->send(router_of(self, ks.home), session_release{key});
      }
      log::get("cluster")->debug("[{}] placed on {}", key,
                                 owner.empty() ? st.id : owner);
      ks.home = owner;
      ks.homed = true;
    }
    auto msg = std::move(ks.waiting.front());
    ks.waiting.pop_front();
    send_to_home(self, key, ks, std::move(msg));
  }
}

void settle(front_pointer self, const relay_done& done) {
  auto i = self->state.keys.find(done.key);
  if (i == self->state.keys.end())
    return;
  auto& ks = i->second;
  for (auto p = ks.inflight.begin(); p != ks.inflight.end(); ++p)
    if (p->seq == done.seq) {
      ks.inflight.erase(p);
      break;
    }
  if (ks.ph == front_state::phase::draining && ks.inflight.empty()) {
    ks.ph = front_state::phase::normal;
    pump(self, done.key);
  }
}

} // namespace nb

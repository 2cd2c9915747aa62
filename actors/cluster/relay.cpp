#include "actors/cluster/relay.hpp"

#include "actors/common/log.hpp"

namespace nb {

outbound_sink::behavior_type
relay_impl(outbound_sink::stateful_pointer<relay_state> self,
           outbound_sink target, outbound_sink outbox,
           cluster_front_actor front, std::string key, int64_t seq) {
  auto& st = self->state;
  st.target = std::move(target);
  st.outbox = std::move(outbox);
  st.front = std::move(front);
  st.key = std::move(key);
  st.seq = seq;
  return {
    [=](outbound_msg& m) {
      auto& st = self->state;
      bool last = m.kind == outbound_kind::final_reply;
      if (st.target)
        self->send(st.target, std::move(m));
      else if (st.outbox)
        self->send(st.outbox, std::move(m));
      else
        log::get("cluster")->warn("[{}] no route for a reply on channel '{}'",
                                  st.key, m.channel);
      if (last) {
        self->send(st.front, relay_done{st.key, st.seq});
        self->quit();
      }
    },
  };
}

} // namespace nb

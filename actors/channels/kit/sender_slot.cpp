#include "actors/channels/kit/sender_slot.hpp"

#include <cstdlib>

#include <caf/all.hpp>

#include "actors/channels/kit/adapter_front.hpp"
#include "actors/common/log.hpp"
#include "actors/common/own_timer.hpp"
#include "actors/common/timed_request.hpp"

namespace nb::chan {

namespace {

std::string slot_stream_key(const outbound_msg& m) {
  return m.chat_id + '|' + m.stream_id;
}

std::string slot_inbound_key(const inbound_msg& m) {
  return m.chat_id + '\n' + m.session_key_override;
}

void slot_start(front_pointer self) {
  auto& out = self->state.out;
  out.live = out.make(self->system());
  // A sender that fails takes the front with it, as before on-demand.
  self->link_to(out.live);
  for (auto& key : out.inbound_order)
    self->send(out.live, out.latest_inbound[key]);
}

void slot_maybe_retire(front_pointer self);

void slot_arm_at(front_pointer self, caf::actor_clock::time_point due) {
  self->state.out.idle_armed = true;
  run_at(self, due, [self] {
    self->state.out.idle_armed = false;
    slot_maybe_retire(self);
  });
}

void slot_arm_idle(front_pointer self) {
  auto& out = self->state.out;
  if (out.in_flight != 0 || !out.live || out.keep)
    return;
  out.last_active = self->clock().now();
  if (!out.idle_armed)
    slot_arm_at(self, out.last_active + out.idle);
}

bool slot_stream_open(front_pointer self) {
  auto& out = self->state.out;
  auto forget_before = self->clock().now() - 10 * out.idle;
  for (auto it = out.open_streams.begin(); it != out.open_streams.end();)
    it = it->second < forget_before ? out.open_streams.erase(it) : ++it;
  return !out.open_streams.empty();
}

void slot_maybe_retire(front_pointer self) {
  auto& out = self->state.out;
  // A request in flight arms the check again when it is answered.
  if (out.in_flight != 0 || !out.live)
    return;
  if (auto due = out.last_active + out.idle; self->clock().now() < due) {
    slot_arm_at(self, due);
    return;
  }
  if (slot_stream_open(self)) {
    slot_arm_idle(self);
    return;
  }
  // Every request was answered: the sender has nothing left to do. The
  // next one starts only once this one is down (on_sender_down).
  self->unlink_from(out.live);
  self->monitor(out.live);
  out.retiring = out.live.address();
  self->send_exit(out.live, caf::exit_reason::user_shutdown);
  out.live = nullptr;
}

void slot_dispatch(front_pointer self, outbound_msg msg,
                   caf::typed_response_promise<caf::ok_atom> rp) {
  auto& out = self->state.out;
  if (!out.live)
    slot_start(self);
  ++out.in_flight;
  timed_request(self, out.live, std::chrono::minutes(3), std::move(msg))
    .then(
      [self, rp](caf::ok_atom) mutable {
        ++self->state.status.sent;
        --self->state.out.in_flight;
        rp.deliver(caf::ok_atom::value);
        slot_arm_idle(self);
      },
      [self, rp](caf::error& err) mutable {
        ++self->state.status.failed;
        --self->state.out.in_flight;
        rp.deliver(std::move(err));
        slot_arm_idle(self);
      });
}

} // namespace

caf::timespan sender_idle_time() {
  if (const char* v = std::getenv("NANOBOT_SENDER_IDLE_S"); v && *v) {
    char* end = nullptr;
    double s = std::strtod(v, &end);
    if (end != v && *end == '\0' && s > 0)
      return std::chrono::duration_cast<caf::timespan>(
        std::chrono::duration<double>(s));
    log::get("channels")
      ->warn("NANOBOT_SENDER_IDLE_S='{}' is not a positive number of "
             "seconds: using 60",
             v);
  }
  return std::chrono::seconds(60);
}

caf::result<caf::ok_atom> send_out(front_pointer self, outbound_msg msg) {
  auto& out = self->state.out;
  if (!out.make)
    return caf::make_error(errc::config_invalid, self->state.status.detail);
  if (msg.kind == outbound_kind::delta)
    out.open_streams[slot_stream_key(msg)] = self->clock().now();
  else if (msg.kind == outbound_kind::stream_end)
    out.open_streams.erase(slot_stream_key(msg));
  auto rp = self->make_response_promise<caf::ok_atom>();
  if (out.retiring)
    out.waiting.push_back({std::move(msg), rp});
  else
    slot_dispatch(self, std::move(msg), rp);
  return rp;
}

void note_inbound(front_pointer self, const inbound_msg& msg) {
  auto& out = self->state.out;
  if (!out.make)
    return;
  if (out.live)
    self->send(out.live, msg);
  auto key = slot_inbound_key(msg);
  auto [it, fresh] = out.latest_inbound.insert_or_assign(key, msg);
  it->second.content.clear();
  it->second.media.clear();
  it->second.reply_to = nullptr;
  if (fresh) {
    out.inbound_order.push_back(key);
    if (out.inbound_order.size() > sender_slot::remembered_chats) {
      out.latest_inbound.erase(out.inbound_order.front());
      out.inbound_order.pop_front();
    }
  }
}

void on_sender_down(front_pointer self, const caf::down_msg& down) {
  auto& out = self->state.out;
  if (down.source != out.retiring)
    return;
  out.retiring = nullptr;
  if (down.reason && down.reason != caf::exit_reason::user_shutdown)
    log::get("channel." + self->state.status.name)
      ->warn("the idle sender ended with {}",
             self->system().render(down.reason));
  auto waiting = std::move(out.waiting);
  out.waiting.clear();
  for (auto& q : waiting)
    slot_dispatch(self, std::move(q.msg), std::move(q.rp));
}

} // namespace nb::chan

#include "actors/channels/kit/adapter.hpp"

#include <algorithm>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/adapter_front.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"

namespace nb::chan {

namespace {

adapter_front_actor::behavior_type front_impl(front_pointer self,
                                              adapter_spec spec,
                                              caf::timespan sender_idle) {
  auto& st = self->state;
  st.status.name = spec.name;
  st.manager = spec.manager;
  auto lg = log::get("channel." + spec.name);
  if (!spec.config_error.empty()) {
    st.status.state = "error";
    st.status.detail = spec.config_error;
    lg->error("{}", spec.config_error);
  } else {
    st.status.state = "connecting";
    st.out.make = std::move(spec.make_sender);
    st.out.idle = sender_idle;
    st.out.keep = spec.keep_sender;
    self->set_down_handler(
      [self](caf::down_msg& down) { on_sender_down(self, down); });
    st.loop = spec.make_loop(self);
  }
  return {
    guard("channels", [self](outbound_msg& msg) -> caf::result<caf::ok_atom> {
      return send_out(self, std::move(msg));
    }),
    [self](channel_status_atom) { return self->state.status; },
    guard("channels", [self](inbound_msg& msg) {
      ++self->state.status.received;
      note_inbound(self, msg);
      self->send(self->state.manager, std::move(msg));
    }),
    guard("channels",
          [self](inbox_record& rec) -> caf::result<inbox_receipt> {
            ++self->state.status.received;
            note_inbound(self, rec.msg);
            return self->delegate(self->state.manager, std::move(rec));
          }),
    guard("channels", [self, lg](adapter_report& r) {
      auto& s = self->state.status;
      if (s.state != r.state || s.detail != r.detail) {
        if (r.state == "error" || r.state == "disconnected")
          lg->warn("{}: {}", r.state, r.detail);
        else
          lg->info("{}: {}", r.state, r.detail);
      }
      s.state = std::move(r.state);
      s.detail = std::move(r.detail);
    }),
  };
}

} // namespace

hand_over_result hand_over(const adapter_front_actor& front,
                           std::vector<inbound_msg> msgs,
                           std::chrono::seconds timeout) {
  hand_over_result out;
  if (msgs.empty() || !front)
    return out;
  caf::scoped_actor self{front->home_system()};
  // All requests first, so one journal write (one fsync) can cover them;
  // then the answers, in order.
  using handle = decltype(self->request(front, timeout, inbox_record{}));
  std::vector<handle> pending;
  for (auto& m : msgs)
    pending.push_back(self->request(front, timeout, inbox_record{std::move(m)}));
  for (auto& rh : pending) {
    bool ok = false;
    rh.receive(
      [&](inbox_receipt& r) {
        ok = true;
        out.receipts.push_back(std::move(r));
      },
               [&](caf::error& err) {
                 out.error = front->home_system().render(err);
               });
    if (!ok)
      break;
    ++out.recorded;
  }
  return out;
}

channel_actor spawn_adapter(caf::actor_system& sys, adapter_spec spec) {
  // Read here, on the caller's thread: the front starts on the scheduler.
  auto idle = std::max(sender_idle_time(), spec.min_sender_idle);
  auto h = sys.spawn(front_impl, std::move(spec), idle);
  return caf::actor_cast<channel_actor>(h);
}

bool is_tool_hint(const outbound_msg& msg) {
  auto meta = nlohmann::json::parse(msg.metadata_json, nullptr, false);
  if (!meta.is_object())
    return true;
  auto i = meta.find("_tool_hint");
  return i == meta.end() || !i->is_boolean() || i->get<bool>();
}

} // namespace nb::chan

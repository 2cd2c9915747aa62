#include "actors/channels/kit/adapter.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"

namespace nb::chan {

namespace {

struct front_state {
  front_state() = default;
  static inline const char* name = "channel_adapter";

  channel_status status;
  channel_manager_actor manager;
  sender_actor sender;
  // Declared last: destroyed first when the actor quits, which stops the
  // loop thread before anything it reports to is gone.
  std::unique_ptr<inbound_loop> loop;
};

using front_pointer = adapter_front_actor::stateful_pointer<front_state>;

adapter_front_actor::behavior_type front_impl(front_pointer self,
                                              adapter_spec spec) {
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
    st.sender = spec.make_sender(self->system());
    self->link_to(st.sender);
    st.loop = spec.make_loop(self);
  }
  return {
    guard("channels", [self](outbound_msg& msg) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      if (!st.sender)
        return caf::make_error(errc::config_invalid, st.status.detail);
      auto rp = self->make_response_promise<caf::ok_atom>();
      timed_request(self, st.sender, std::chrono::minutes(3), std::move(msg))
        .then(
          [self, rp](caf::ok_atom) mutable {
            ++self->state.status.sent;
            rp.deliver(caf::ok_atom::value);
          },
          [self, rp](caf::error& err) mutable {
            ++self->state.status.failed;
            rp.deliver(std::move(err));
          });
      return rp;
    }),
    [self](channel_status_atom) { return self->state.status; },
    guard("channels", [self](inbound_msg& msg) {
      ++self->state.status.received;
      if (self->state.sender)
        self->send(self->state.sender, msg);
      self->send(self->state.manager, std::move(msg));
    }),
    guard("channels",
          [self](inbox_record& rec) -> caf::result<inbox_receipt> {
            ++self->state.status.received;
            if (self->state.sender)
              self->send(self->state.sender, rec.msg);
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
  auto h = sys.spawn(front_impl, std::move(spec));
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

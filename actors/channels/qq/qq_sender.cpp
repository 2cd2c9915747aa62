#include "actors/channels/qq/qq_sender.hpp"

#include <map>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/qq/qq_api.hpp"
#include "actors/common/guard.hpp"

namespace nb::qq {

namespace {

using nlohmann::json;

/// What the sender knows about one chat.
struct chat_facts {
  bool group = false;
  std::string msg_id;   ///< the newest message from it
  int64_t next_seq = 2; ///< for msg_id
};

struct sender_state {
  sender_state() = default;
  static inline const char* name = "qq_sender";
  std::unique_ptr<qq_config> cfg; ///< api_ refers to it: never moves
  std::unique_ptr<qq_api> api;
  std::map<std::string, chat_facts> chats;
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              qq_config cfg) {
  auto& st = self->state;
  st.cfg = std::make_unique<qq_config>(std::move(cfg));
  st.api = std::make_unique<qq_api>(*st.cfg);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      if (m.content.empty())
        return caf::ok_atom::value;
      auto& chat = self->state.chats[m.chat_id];
      qq_post p{chat.group, m.chat_id, m.content, chat.msg_id,
                chat.msg_id.empty() ? 1 : chat.next_seq++};
      if (auto err = self->state.api->post(p); !err.empty())
        return caf::make_error(caf::sec::runtime_error,
                               "qq send to " + m.chat_id + ": " + err);
      return caf::ok_atom::value;
    }),
    [self](const inbound_msg& in) {
      auto meta = json::parse(in.metadata_json, nullptr, false);
      if (!meta.is_object())
        return;
      auto& chat = self->state.chats[in.chat_id];
      chat.group = meta.value("chat_type", json{}) == "group";
      auto id = meta.value("message_id", json{});
      if (id.is_string() && id.get<std::string>() != chat.msg_id) {
        chat.msg_id = id.get<std::string>();
        chat.next_seq = 2;
      }
    },
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, qq_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::qq

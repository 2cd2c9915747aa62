#include "actors/channels/mochat/mochat_sender.hpp"

#include <map>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/mochat/mochat_api.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/strings.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::mochat {

namespace {

using nlohmann::json;

struct mochat_sender_state {
  mochat_sender_state() = default;
  static inline const char* name = "mochat_sender";
  mochat_config cfg;
  std::unique_ptr<rest_api> api;
  std::map<std::string, std::string> group_of_panel; ///< from inbound
};

/// The reply's words with its attachments' paths and links under them, one
/// a line: Mochat's send calls take text only, and the original sends
/// attachments this way.
std::string reply_text(const outbound_msg& m) {
  auto text = trim_space(m.content);
  for (const auto& ref : chan::outbound_media(m.metadata_json))
    if (auto r = trim_space(ref); !r.empty())
      text += (text.empty() ? "" : "\n") + r;
  return text;
}

using mochat_sender_pointer =
  chan::sender_actor::stateful_pointer<mochat_sender_state>;

chan::sender_actor::behavior_type mochat_sender_impl(mochat_sender_pointer self,
                                                     mochat_config cfg) {
  name_thread("mochat.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.api = std::make_unique<rest_api>(cfg);
  return {
    guard("channels",
          [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
            if (m.kind != outbound_kind::final_reply
                && m.kind != outbound_kind::progress)
              return caf::ok_atom::value;
            auto& st = self->state;
            std::string group;
            if (auto it = st.group_of_panel.find(m.chat_id);
                it != st.group_of_panel.end())
              group = it->second;
            auto meta = json::parse(m.metadata_json, nullptr, false);
            if (meta.is_object() && meta.value("group_id", json{}).is_string())
              group = meta["group_id"].get<std::string>();
            auto text = reply_text(m);
            auto [path, body] = send_request(m.chat_id, text, group, "");
            if (path.empty())
              return caf::make_error(caf::sec::invalid_argument,
                                     "mochat: empty chat id");
            if (text.empty())
              return caf::ok_atom::value;
            auto answer = st.api->post(path, body);
            if (!answer.error.empty()) {
              auto why = answer.bad_token
                           ? "channels." + st.cfg.name + ".clawToken: refused ("
                               + answer.error + ")"
                           : answer.error;
              return caf::make_error(caf::sec::runtime_error, "mochat send to "
                                                                + m.chat_id
                                                                + ": " + why);
            }
            return caf::ok_atom::value;
          }),
    [self](const inbound_msg& in) {
      auto meta = json::parse(in.metadata_json, nullptr, false);
      if (meta.is_object() && meta.value("target_kind", "") == "panel"
          && meta.value("group_id", json{}).is_string()
          && !meta["group_id"].get<std::string>().empty())
        self->state.group_of_panel[in.chat_id] =
          meta["group_id"].get<std::string>();
    },
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, mochat_config cfg) {
  return sys.spawn<caf::detached>(mochat_sender_impl, std::move(cfg));
}

} // namespace nb::mochat

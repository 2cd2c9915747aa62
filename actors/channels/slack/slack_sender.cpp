#include "actors/channels/slack/slack_sender.hpp"

#include <thread>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/text_split.hpp"
#include "actors/channels/slack/slack_event.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::slack {

namespace {

using nlohmann::json;

constexpr size_t piece_limit = 3900;

struct sender_state {
  sender_state() = default;
  static inline const char* name = "slack_sender";
  slack_config cfg;
  std::unique_ptr<chan::http_endpoint> http;
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

/// "" once Slack accepted the piece, else why not.
std::string post(sender_state& st, const json& body) {
  for (int attempt = 0;; ++attempt) {
    auto r = st.http->call("POST", "/chat.postMessage", body.dump(),
                           {{"Authorization", "Bearer " + st.cfg.bot_token}},
                           std::chrono::seconds(30),
                           "application/json; charset=utf-8");
    if (r.ok() && r.json.is_object() && r.json.value("ok", false) == true)
      return "";
    if (r.status == 0)
      return r.error;
    if (r.status == 429 && r.retry_after_s <= 20 && attempt < 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(
        static_cast<int64_t>(std::max(r.retry_after_s, 0.05) * 1000)));
      continue;
    }
    auto err = r.json.is_object() ? r.json.value("error", "") : "";
    return "HTTP " + std::to_string(r.status) + (err.empty() ? "" : " " + err);
  }
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              slack_config cfg) {
  name_thread("slack.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.http = std::make_unique<chan::http_endpoint>(cfg.api_base);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      json body{{"channel", m.chat_id}};
      if (auto thread = thread_of(m.session_key, m.chat_id); !thread.empty())
        body["thread_ts"] = thread;
      for (auto& piece : chan::split_text(m.content, piece_limit)) {
        body["text"] = to_mrkdwn(piece);
        if (auto err = post(self->state, body); !err.empty())
          return caf::make_error(caf::sec::runtime_error,
                                 "slack chat.postMessage to " + m.chat_id
                                   + ": " + err);
      }
      return caf::ok_atom::value;
    }),
    [](const inbound_msg&) {},
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, slack_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::slack

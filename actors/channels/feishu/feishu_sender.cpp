#include "actors/channels/feishu/feishu_sender.hpp"

#include <deque>
#include <map>
#include <regex>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/feishu/feishu_api.hpp"
#include "actors/channels/feishu/feishu_media.hpp"
#include "actors/channels/feishu/feishu_stream.hpp"
#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/media_out.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::feishu {

namespace {

using nlohmann::json;

/// What a reply needs to know about the message it answers.
struct last_message {
  std::string message_id;
  bool group = false;
  bool in_topic = false;
};

struct sender_state {
  sender_state() = default;
  static inline const char* name = "feishu_sender";
  feishu_config cfg;
  std::unique_ptr<open_api> api;
  std::unique_ptr<card_streams> cards; ///< refers to *api
  std::map<std::string, last_message> last; ///< by session key
  std::deque<std::string> order;
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

const last_message* find_last(const sender_state& st,
                              const std::string& session_key) {
  if (auto it = st.last.find(session_key); it != st.last.end())
    return &it->second;
  // "<agent>:<channel>:..." when an agent other than main answers.
  if (auto colon = session_key.find(':'); colon != std::string::npos)
    if (auto it = st.last.find(session_key.substr(colon + 1));
        it != st.last.end())
      return &it->second;
  return nullptr;
}

/// "" once Feishu took the message, else why not. `first`: the reply's
/// first message, which answers the user's message when replyToMessage
/// asks; inside a topic every message does, to stay in it.
std::string deliver(sender_state& st, const outbound_msg& m,
                    const std::string& type, const std::string& content,
                    bool first) {
  const auto* last = find_last(st, m.session_key);
  bool reply =
    last != nullptr && !last->message_id.empty()
    && ((first && st.cfg.reply_to_message && m.kind != outbound_kind::progress)
        || last->in_topic);
  if (reply) {
    json body{{"msg_type", type}, {"content", content}};
    if (last->group && st.cfg.reply_to_message)
      body["reply_in_thread"] = true;
    auto r = st.api->call("POST",
                          "/open-apis/im/v1/messages/"
                            + chan::url_encode(last->message_id) + "/reply",
                          body);
    if (r.ok())
      return "";
    if (r.status == 0 || rate_limited(r) || r.status >= 500)
      return "reply: " + r.describe();
    // The message is gone or cannot be answered: a plain message will do.
    log::get("channel." + st.cfg.name)
      ->warn("reply to {} refused ({}); sending a new message",
             last->message_id, r.describe());
  }
  auto id_type = m.chat_id.rfind("oc_", 0) == 0 ? "chat_id" : "open_id";
  auto r = st.api->call(
    "POST", std::string{"/open-apis/im/v1/messages?receive_id_type="} + id_type,
    json{{"receive_id", m.chat_id}, {"msg_type", type}, {"content", content}});
  return r.ok() ? "" : r.describe();
}

/// The attachments after the words. The words went out already, so a
/// failure here is logged (naming the file) and not answered as an error:
/// a retry by the manager would send the words twice.
void deliver_media(sender_state& st, const outbound_msg& m,
                   const std::vector<std::string>& files, bool first) {
  auto lg = log::get("channel." + st.cfg.name);
  for (const auto& path : files) {
    media_message mm;
    auto err = upload_media(*st.api, path, mm);
    if (err.empty())
      err = deliver(st, m, mm.msg_type, mm.content, first);
    if (!err.empty())
      lg->warn("attachment {} for chat {} not sent: {}", path, m.chat_id, err);
    first = false;
  }
}

/// A tool hint: into the turn's streaming card when it has one, else a
/// card of its own with the same "🔧" lines, as the original sends it.
std::string send_hint(sender_state& st, const outbound_msg& m,
                      const std::string& stream_key) {
  auto hint = m.content;
  if (hint.find_first_not_of(" \t\r\n") == std::string::npos)
    return "";
  if (st.cards->hint(stream_key, hint))
    return "";
  json card{{"config", {{"wide_screen_mode", true}}},
            {"elements", json::array({{{"tag", "markdown"},
                                       {"content", tool_hint_markdown(hint)}}})}};
  return deliver(st, m, "interactive", card.dump(), true);
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              feishu_config cfg) {
  name_thread("feishu.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.api = std::make_unique<open_api>(cfg);
  self->state.cards = std::make_unique<card_streams>(
    *self->state.api, log::get("channel." + cfg.name));
  return {
    guard("channels",
          [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
            auto& st = self->state;
            auto send = [&st, &m](const std::string& type,
                                  const std::string& content) {
              return deliver(st, m, type, content, true);
            };
            auto stream_key = m.chat_id + "|" + m.stream_id;
            if (m.kind == outbound_kind::delta) {
              st.cards->delta(stream_key, m.content, send);
              return caf::ok_atom::value;
            }
            if (m.kind == outbound_kind::stream_end) {
              if (auto err = st.cards->end(stream_key, m.content, send);
                  !err.empty())
                return caf::make_error(caf::sec::runtime_error,
                                       "feishu streamed answer to " + m.chat_id
                                         + ": " + err);
              return caf::ok_atom::value;
            }
            if (m.kind != outbound_kind::final_reply
                && m.kind != outbound_kind::progress)
              return caf::ok_atom::value;
            if (m.kind == outbound_kind::final_reply)
              st.cards->forget(stream_key);
            if (m.kind == outbound_kind::progress && chan::is_tool_hint(m)) {
              if (auto err = send_hint(st, m, stream_key); !err.empty())
                return caf::make_error(caf::sec::runtime_error,
                                       "feishu tool hint to " + m.chat_id
                                         + ": " + err);
              return caf::ok_atom::value;
            }
            // An answer that streamed into a card is shown: only its
            // attachments are left to send.
            auto meta = json::parse(m.metadata_json, nullptr, false);
            bool streamed = m.kind == outbound_kind::final_reply
                            && meta.is_object()
                            && meta.value("streamed", false) == true;
            // Links go with the words; files are uploaded.
            auto [text, files] = chan::links_into_words(
              streamed ? std::string{} : m.content, m.metadata_json);
            bool words = text.find_first_not_of(" \t\r\n") != std::string::npos;
            if (words) {
              auto [type, content] = render(text);
              if (auto err = deliver(self->state, m, type, content, true);
                  !err.empty())
                return caf::make_error(caf::sec::runtime_error,
                                       "feishu message to " + m.chat_id + ": "
                                         + err);
            }
            deliver_media(self->state, m, files, !words);
            return caf::ok_atom::value;
          }),
    [self](const inbound_msg& in) {
      auto meta = json::parse(in.metadata_json, nullptr, false);
      if (!meta.is_object())
        return;
      auto& st = self->state;
      auto key = session_key(in);
      if (!st.last.count(key)) {
        st.order.push_back(key);
        if (st.order.size() > 1000) {
          st.last.erase(st.order.front());
          st.order.pop_front();
        }
      }
      st.last[key] = last_message{meta.value("message_id", ""),
                                  meta.value("chat_type", "") == "group",
                                  !meta.value("thread_id", "").empty()};
    },
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, feishu_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

std::pair<std::string, std::string> render(const std::string& md) {
  static const std::regex markdown{
    R"((^|\n)(#{1,6} |```|\s*[-*+] |\s*\d+\. |\|.*\|)|\*\*[^*\n]+\*\*|~~[^~\n]+~~|\[[^\]\n]+\]\([^)\s]+\))"};
  if (!std::regex_search(md, markdown))
    return {"text", json{{"text", md}}.dump()};
  json card{{"config", {{"wide_screen_mode", true}}},
            {"elements", json::array({{{"tag", "markdown"},
                                       {"content", md}}})}};
  return {"interactive", card.dump()};
}

} // namespace nb::feishu

#include "actors/channels/dingtalk/dingtalk_sender.hpp"

#include <caf/all.hpp>

#include "actors/channels/dingtalk/dingtalk_api.hpp"
#include "actors/channels/dingtalk/dingtalk_media.hpp"
#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/kit/text_split.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/strings.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/common/utf8.hpp"

namespace nb::dingtalk {

namespace {

using nlohmann::json;

/// msgParam may hold 15 000 bytes; the manager splits by characters (4 000,
/// see manager/options.cpp), this keeps escaped text under it too.
constexpr size_t piece_bytes = 12000;

struct sender_state {
  sender_state() = default;
  static inline const char* name = "dingtalk_sender";
  dingtalk_config cfg;
  std::unique_ptr<openapi> api;
  std::unique_ptr<link_fetcher> links;
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

/// The notification title: the first line without Markdown marks.
std::string title_of(const std::string& text) {
  std::string line;
  for (char c : text.substr(0, text.find('\n')))
    if (std::string_view{"#>*`_~"}.find(c) == std::string_view::npos)
      line += c;
  line = trim_space(std::string{utf8_head(line, 60)});
  return line.empty() ? "nanobot" : line;
}

/// "" once DingTalk accepted the message, else why not.
std::string post(sender_state& st, const std::string& path, const json& body) {
  for (int waits = 0;; ++waits) {
    auto r = st.api->call(path, body);
    if (!r.ok())
      return describe(r);
    // batchSend answers 200 and names the users it held back for sending
    // too fast, and those it does not know.
    auto held = r.json.is_object()
                  ? r.json.value("flowControlledStaffIdList", json{}) : json{};
    if (held.is_array() && !held.empty()) {
      if (waits < 2 && openapi::wait_out(r, nullptr))
        continue;
      return "flow controlled (too many messages): " + held.dump();
    }
    auto invalid = r.json.is_object()
                     ? r.json.value("invalidStaffIdList", json{}) : json{};
    if (invalid.is_array() && !invalid.empty())
      return "unknown user " + invalid.dump();
    auto errcode = r.json.is_object() ? r.json.value("errcode", json{}) : json{};
    if (errcode.is_number_integer() && errcode.get<int64_t>() != 0)
      return describe(r);
    return "";
  }
}

/// The attachments after the words, as the original sends them. The words
/// went out already, so a failure is logged (naming the file) and shown in
/// the chat, never answered as an error: the manager's retry would send
/// the words twice.
void send_attachments(sender_state& st, const outbound_msg& m) {
  auto robot = [&](const std::string& key, const json& param) {
    auto [path, body] = robot_request(st.cfg, m.chat_id, key, param);
    return post(st, path, body);
  };
  for (const auto& ref : chan::outbound_media(m.metadata_json)) {
    auto err = send_attachment(*st.api, ref, *st.links, robot);
    if (err.empty())
      continue;
    auto lg = log::get("channel." + st.cfg.name);
    lg->warn("attachment {} for chat {} not sent: {}", ref, m.chat_id, err);
    auto notice =
      robot("sampleText", {{"content", "[Attachment send failed: "
                                         + chan::file_name_of(ref) + "]"}});
    if (!notice.empty())
      lg->warn("the notice about {} did not go out either: {}", ref, notice);
  }
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              dingtalk_config cfg) {
  name_thread("dingtalk.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.api = std::make_unique<openapi>(cfg);
  self->state.links = std::make_unique<link_fetcher>(cfg);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      bool markdown = m.kind == outbound_kind::final_reply;
      for (auto& piece : chan::split_text(m.content, piece_bytes)) {
        auto [path, body] = send_request(self->state.cfg, m.chat_id, piece,
                                         markdown);
        if (auto err = post(self->state, path, body); !err.empty())
          return caf::make_error(caf::sec::runtime_error,
                                 "dingtalk send to " + m.chat_id + ": " + err);
      }
      send_attachments(self->state, m);
      return caf::ok_atom::value;
    }),
    [](const inbound_msg&) {},
  };
}

} // namespace

std::pair<std::string, json> send_request(const dingtalk_config& cfg,
                                          const std::string& chat_id,
                                          const std::string& text,
                                          bool markdown) {
  json param = markdown ? json{{"title", title_of(text)}, {"text", text}}
                        : json{{"content", text}};
  return robot_request(cfg, chat_id, markdown ? "sampleMarkdown" : "sampleText",
                       param);
}

std::pair<std::string, json> robot_request(const dingtalk_config& cfg,
                                           const std::string& chat_id,
                                           const std::string& msg_key,
                                           const json& param) {
  json body{{"robotCode", cfg.client_id},
            {"msgKey", msg_key},
            {"msgParam", param.dump()}};
  if (chat_id.rfind("group:", 0) == 0) {
    body["openConversationId"] = chat_id.substr(6);
    return {"/v1.0/robot/groupMessages/send", body};
  }
  body["userIds"] = json::array({chat_id});
  return {"/v1.0/robot/oToMessages/batchSend", body};
}

chan::sender_actor spawn_sender(caf::actor_system& sys, dingtalk_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::dingtalk

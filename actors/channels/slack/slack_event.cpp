#include "actors/channels/slack/slack_event.hpp"

#include <regex>

#include "actors/common/strings.hpp"

namespace nb::slack {

namespace {

using nlohmann::json;

std::string str_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

} // namespace

std::optional<inbound_msg> parse_event(const json& payload,
                                       const std::string& bot_user,
                                       const std::string& channel,
                                       bool reply_in_thread,
                                       std::string& dedup_key,
                                       std::string& why) {
  if (!payload.is_object() || !payload.contains("event")
      || !payload["event"].is_object()) {
    why = "malformed events_api payload";
    return std::nullopt;
  }
  const json& ev = payload["event"];
  auto type = str_of(ev, "type");
  if (type != "message" && type != "app_mention") {
    why = "event " + type;
    return std::nullopt;
  }
  if (ev.contains("bot_id") || !str_of(ev, "subtype").empty()
      || str_of(ev, "user").empty() || str_of(ev, "user") == bot_user) {
    why = "bot message or edit";
    return std::nullopt;
  }
  auto chat = str_of(ev, "channel");
  auto ts = str_of(ev, "ts");
  if (chat.empty() || ts.empty()) {
    why = "malformed message event";
    return std::nullopt;
  }
  dedup_key = chat + ":" + ts;
  auto text = str_of(ev, "text");
  std::string tag = "<@" + bot_user + ">";
  bool mentioned = type == "app_mention";
  for (auto p = text.find(tag); !bot_user.empty() && p != std::string::npos;
       p = text.find(tag)) {
    mentioned = true;
    text.erase(p, tag.size());
  }
  text = trim_space(text);
  if (text.empty()) {
    why = "no text";
    return std::nullopt;
  }
  auto ctype = str_of(ev, "channel_type");
  bool dm = ctype == "im" || (ctype.empty() && !chat.empty() && chat[0] == 'D');
  auto thread = str_of(ev, "thread_ts");
  inbound_msg in;
  in.channel = channel;
  in.sender_id = str_of(ev, "user");
  in.chat_id = chat;
  in.content = text;
  json meta{{"_is_group", !dm},
            {"_mentioned", dm || mentioned},
            {"_message_id", ts},
            {"slack", {{"ts", ts}, {"channel_type", ctype}}}};
  if (thread.empty() && !dm && reply_in_thread)
    thread = ts; // the answer starts a thread under this message
  if (!thread.empty()) {
    in.session_key_override = channel + ":" + chat + ":" + thread;
    meta["slack"]["thread_ts"] = thread;
  }
  in.metadata_json = meta.dump();
  return in;
}

std::string thread_of(const std::string& session_key,
                      const std::string& chat_id) {
  // "[agent:]slack:<chat>:<thread_ts>": what follows the chat id, so an
  // agent's prefix is not mistaken for the channel.
  auto marker = ":" + chat_id + ":";
  auto at = session_key.find(marker);
  return at == std::string::npos ? "" : session_key.substr(at + marker.size());
}

std::string to_mrkdwn(const std::string& md) {
  std::string s;
  for (char c : md) {
    switch (c) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      default: s += c;
    }
  }
  static const std::regex link{R"(\[([^\]\n]+)\]\(([^)\s]+)\))"};
  s = std::regex_replace(s, link, "<$2|$1>");
  static const std::regex bold{R"(\*\*([^*\n]+?)\*\*|__([^_\n]+?)__)"};
  s = std::regex_replace(s, bold, "*$1$2*");
  static const std::regex heading{R"((^|\n)#{1,6}[ \t]+([^\n]+))"};
  s = std::regex_replace(s, heading, "$1*$2*");
  static const std::regex strike{R"(~~([^~\n]+?)~~)"};
  return std::regex_replace(s, strike, "~$1~");
}

} // namespace nb::slack

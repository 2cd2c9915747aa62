#include "actors/channels/dingtalk/dingtalk_frame.hpp"

#include "actors/common/strings.hpp"

namespace nb::dingtalk {

namespace {

using nlohmann::json;

std::string str_of(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end())
    return {};
  if (it->is_string())
    return it->get<std::string>();
  if (it->is_number_integer())
    return std::to_string(it->get<int64_t>());
  return {};
}

const json& object_of(const json& j, const char* key) {
  static const json empty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

std::string ack(const json& headers, const std::string& data) {
  return json{{"code", 200},
              {"headers", headers},
              {"message", "OK"},
              {"data", data}}
    .dump();
}

/// The text of a richText list, and the pictures/files it carries.
std::string read_rich_text(const json& list, std::vector<media_item>& media) {
  std::string text;
  if (!list.is_array())
    return text;
  for (const auto& item : list) {
    if (!item.is_object())
      continue;
    if (auto t = trim_space(str_of(item, "text")); !t.empty())
      text += (text.empty() ? "" : " ") + t;
    auto code = str_of(item, "downloadCode");
    if (code.empty())
      code = str_of(item, "pictureDownloadCode");
    if (!code.empty()) {
      auto type = str_of(item, "type");
      media.push_back({type == "picture" || type.empty() ? "image" : "file",
                       code, str_of(item, "fileName")});
    }
  }
  return text;
}

} // namespace

std::optional<stream_frame> read_frame(const std::string& text,
                                       std::string& why) {
  auto j = json::parse(text, nullptr, false);
  if (!j.is_object()) {
    why = "not a JSON object";
    return std::nullopt;
  }
  stream_frame f;
  f.type = str_of(j, "type");
  if (f.type != "SYSTEM" && f.type != "EVENT" && f.type != "CALLBACK") {
    why = "unknown frame type \"" + f.type + "\"";
    return std::nullopt;
  }
  auto h = j.find("headers");
  if (h == j.end() || !h->is_object()) {
    why = f.type + " frame without headers";
    return std::nullopt;
  }
  f.headers = *h;
  f.topic = str_of(*h, "topic");
  f.message_id = str_of(*h, "messageId");
  if (auto d = j.find("data"); d != j.end())
    f.data = d->is_string() ? d->get<std::string>() : d->dump();
  if (f.type != "SYSTEM" && f.message_id.empty()) {
    why = f.type + " frame without a messageId";
    return std::nullopt;
  }
  return f;
}

std::string ack_frame(const stream_frame& f) {
  json headers{{"contentType", "application/json"},
               {"messageId", f.message_id}};
  if (f.type == "EVENT")
    return ack(headers, json{{"status", "SUCCESS"}, {"message", "OK"}}.dump());
  return ack(headers, f.data);
}

std::string pong_frame(const stream_frame& f) {
  return ack(f.headers, f.data);
}

std::optional<bot_message> read_bot_message(const std::string& data,
                                            const dingtalk_config& cfg,
                                            std::string& why) {
  auto j = json::parse(data, nullptr, false);
  if (!j.is_object()) {
    why = "malformed robot message: data is not a JSON object";
    return std::nullopt;
  }
  bot_message out;
  auto sender = str_of(j, "senderStaffId");
  if (sender.empty())
    sender = str_of(j, "senderId");
  auto msg_id = str_of(j, "msgId");
  auto type = str_of(j, "msgtype");
  if (sender.empty() || msg_id.empty() || type.empty()) {
    why = "malformed robot message: no sender, msgId or msgtype";
    return std::nullopt;
  }
  const json& content = object_of(j, "content");
  std::string text;
  if (type == "text") {
    text = str_of(object_of(j, "text"), "content");
  } else if (type == "richText") {
    text = read_rich_text(content.value("richText", json{}), out.media);
  } else if (type == "picture") {
    auto code = str_of(content, "downloadCode");
    if (code.empty())
      code = str_of(content, "pictureDownloadCode");
    if (!code.empty())
      out.media.push_back({"image", code, ""});
  } else if (type == "file" || type == "video") {
    if (auto code = str_of(content, "downloadCode"); !code.empty())
      out.media.push_back({type, code, str_of(content, "fileName")});
  } else if (type == "audio") {
    text = str_of(content, "recognition");
  } else {
    why = "unsupported msgtype \"" + type + "\"";
    return std::nullopt;
  }
  text = trim_space(text);
  if (text.empty() && out.media.empty()) {
    why = "empty " + type + " message";
    return std::nullopt;
  }
  auto conversation = str_of(j, "conversationId");
  out.is_group = str_of(j, "conversationType") == "2" && !conversation.empty();
  out.sender_name = str_of(j, "senderNick");
  auto& m = out.msg;
  m.channel = cfg.name;
  m.sender_id = sender;
  m.chat_id = out.is_group ? "group:" + conversation : sender;
  m.content = text;
  if (out.is_group && cfg.group_user_isolation)
    m.session_key_override = cfg.name + ":" + m.chat_id + ":" + sender;
  auto at = j.find("isInAtList");
  bool mentioned = !out.is_group
                   || (at != j.end() && at->is_boolean() && at->get<bool>());
  json meta{{"_message_id", msg_id},
            {"_is_group", out.is_group},
            {"_mentioned", mentioned},
            {"sender_name", out.sender_name},
            {"dingtalk", {{"conversation_type", str_of(j, "conversationType")},
                          {"msgtype", type}}}};
  m.metadata_json = meta.dump();
  return out;
}

} // namespace nb::dingtalk

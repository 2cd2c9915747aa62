#include "actors/channels/qq/qq_event.hpp"

#include "actors/common/strings.hpp"

namespace nb::qq {

namespace {

using nlohmann::json;

std::string text_of(const json& obj, const char* key) {
  if (!obj.is_object())
    return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

} // namespace

std::optional<qq_message> read_message(const std::string& type, const json& d,
                                       const std::string& channel,
                                       std::string& why) {
  bool group = type == "GROUP_AT_MESSAGE_CREATE";
  if (!group && type != "C2C_MESSAGE_CREATE") {
    why = "not a message";
    return std::nullopt;
  }
  const json author = d.is_object() ? d.value("author", json::object())
                                    : json::object();
  qq_message out;
  out.group = group;
  out.message_id = text_of(d, "id");
  auto user = group ? text_of(author, "member_openid")
                    : text_of(author, "user_openid");
  if (user.empty() && !group)
    user = text_of(author, "id");
  auto chat = group ? text_of(d, "group_openid") : user;
  if (out.message_id.empty() || user.empty() || chat.empty()) {
    why = "malformed " + type;
    return std::nullopt;
  }
  if (d.contains("attachments") && d["attachments"].is_array())
    for (auto& a : d["attachments"]) {
      qq_attachment att;
      att.url = text_of(a, "url");
      if (att.url.rfind("//", 0) == 0)
        att.url = "https:" + att.url;
      att.filename = text_of(a, "filename");
      att.content_type = text_of(a, "content_type");
      if (a.is_object() && a.value("size", json{}).is_number_integer())
        att.size = a["size"].get<int64_t>();
      if (!att.url.empty())
        out.attachments.push_back(att);
    }
  auto content = trim_space(text_of(d, "content"));
  if (content.empty() && out.attachments.empty()) {
    why = "no text or attachments";
    return std::nullopt;
  }
  auto& in = out.msg;
  in.channel = channel;
  in.sender_id = user;
  in.chat_id = chat;
  in.content = content;
  in.metadata_json = json{{"_is_group", group},
                          {"_mentioned", true},
                          {"_message_id", out.message_id},
                          {"message_id", out.message_id},
                          {"chat_type", group ? "group" : "c2c"}}
                       .dump();
  return out;
}

} // namespace nb::qq

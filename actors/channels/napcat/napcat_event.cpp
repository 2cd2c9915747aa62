#include "actors/channels/napcat/napcat_event.hpp"

#include <algorithm>
#include <cctype>

#include "actors/common/strings.hpp"

namespace nb::napcat {

namespace {

using nlohmann::json;

constexpr size_t remembered_sends = 2000;

const json& data_of(const json& seg) {
  static const json empty = json::object();
  auto it = seg.find("data");
  return it != seg.end() && it->is_object() ? *it : empty;
}

std::string text_of(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

/// NapCat sends segment arrays; a plain string is taken as one text
/// segment (CQ codes are not parsed: NapCat can be set to arrays).
json segments_of(const json& message) {
  if (message.is_array())
    return message;
  if (message.is_string() && !message.get<std::string>().empty())
    return json::array({{{"type", "text"}, {"data", {{"text", message}}}}});
  return json::array();
}

} // namespace

void onebot_view::note_sent(const std::string& message_id) {
  if (message_id.empty())
    return;
  bot_messages.push_back(message_id);
  if (bot_messages.size() > remembered_sends)
    bot_messages.pop_front();
}

bool onebot_view::sent_by_bot(const std::string& message_id) const {
  return !message_id.empty()
         && std::find(bot_messages.begin(), bot_messages.end(), message_id)
              != bot_messages.end();
}

std::string id_text(const json& obj, const char* key) {
  if (!obj.is_object())
    return "";
  auto it = obj.find(key);
  if (it == obj.end())
    return "";
  if (it->is_number_integer())
    return std::to_string(it->get<int64_t>());
  if (it->is_string())
    return it->get<std::string>();
  return "";
}

std::string answer_echo(const json& frame) {
  if (!frame.is_object() || frame.contains("post_type"))
    return "";
  auto it = frame.find("echo");
  return it != frame.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<onebot_message> read_message(const json& ev,
                                           const onebot_view& view,
                                           const std::string& channel,
                                           std::string& why) {
  auto type = text_of(ev, "message_type");
  auto user = id_text(ev, "user_id");
  if ((type != "private" && type != "group") || user.empty()) {
    why = "not a private or group message";
    return std::nullopt;
  }
  onebot_message out;
  out.message_id = id_text(ev, "message_id");
  std::vector<std::string> parts;
  std::string reply_to;
  for (auto& seg : segments_of(ev.value("message", json{}))) {
    if (!seg.is_object())
      continue;
    auto kind = text_of(seg, "type");
    const json& d = data_of(seg);
    if (kind == "text") {
      parts.push_back(text_of(d, "text"));
    } else if (kind == "at") {
      auto qq = id_text(d, "qq");
      if (!view.self_id.empty() && qq == view.self_id)
        out.addressed = true;
      else if (!qq.empty())
        parts.push_back("@" + qq);
    } else if (kind == "image") {
      image_ref img;
      img.url = text_of(d, "url");
      img.file = text_of(d, "file");
      auto size = id_text(d, "file_size");
      if (!size.empty() && std::all_of(size.begin(), size.end(),
                      [](unsigned char c) { return std::isdigit(c) != 0; })
          && size.size() < 19)
        img.size = std::stoll(size);
      if (img.url.rfind("http://", 0) == 0 || img.url.rfind("https://", 0) == 0)
        out.images.push_back(img);
    } else if (kind == "reply") {
      reply_to = id_text(d, "id");
    } else if (kind == "face") {
      parts.push_back("[face:" + id_text(d, "id") + "]");
    }
  }
  if (view.sent_by_bot(reply_to))
    out.addressed = true;
  std::string text;
  for (auto& p : parts) {
    auto t = trim_space(p);
    if (!t.empty())
      text += (text.empty() ? "" : " ") + t;
  }
  const json sender = ev.value("sender", json::object());
  auto nickname = text_of(sender, "card");
  if (nickname.empty())
    nickname = text_of(sender, "nickname");
  bool group = type == "group";
  if (group) {
    out.group_id = id_text(ev, "group_id");
    if (out.group_id.empty()) {
      why = "group message without group_id";
      return std::nullopt;
    }
  }
  if (text.empty() && out.images.empty()) {
    why = "no text or images";
    return std::nullopt;
  }
  auto& in = out.msg;
  in.channel = channel;
  in.sender_id = user;
  in.chat_id = group ? "group:" + out.group_id : "private:" + user;
  in.content = group && !text.empty()
                 ? (nickname.empty() ? user : nickname) + ": " + text
                 : text;
  json meta{{"_is_group", group},
            // The adapter applies the group policy (and its per-group
            // overrides): a group message it hands on is one to answer.
            {"_mentioned", true},
            {"mentioned_self", out.addressed},
            {"message_id", out.message_id},
            {"nickname", nickname}};
  if (!out.message_id.empty())
    meta["_message_id"] = out.message_id;
  if (!reply_to.empty())
    meta["reply_to"] = reply_to;
  if (group)
    meta["group_id"] = out.group_id;
  in.metadata_json = meta.dump();
  return out;
}

bool should_answer(const napcat_config& cfg, const onebot_message& m,
                   double draw) {
  if (m.group_id.empty() || m.addressed)
    return true;
  return draw < rule_for(cfg, m.group_id).chance;
}

std::optional<inbound_msg> read_welcome(const json& ev,
                                        const std::string& channel) {
  if (text_of(ev, "notice_type") != "group_increase")
    return std::nullopt;
  auto group = id_text(ev, "group_id");
  auto user = id_text(ev, "user_id");
  if (group.empty() || user.empty())
    return std::nullopt;
  inbound_msg in;
  in.channel = channel;
  in.sender_id = user;
  in.chat_id = "group:" + group;
  in.content = "[group event] new member " + user + " joined group " + group;
  in.metadata_json = json{{"_is_group", true},
                          {"_mentioned", true},
                          {"_message_id", "group_increase:" + group + ":"
                                            + user + ":"
                                            + id_text(ev, "time")},
                          {"event", "group_increase"},
                          {"group_id", group}}
                       .dump();
  return in;
}

} // namespace nb::napcat

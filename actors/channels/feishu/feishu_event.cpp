#include "actors/channels/feishu/feishu_event.hpp"

#include <cctype>

#include "actors/common/strings.hpp"

namespace nb::feishu {

namespace {

using nlohmann::json;

std::string str_of(const json& j, const char* key) {
  if (!j.is_object())
    return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

const json& obj_of(const json& j, const char* key) {
  static const json empty = json::object();
  if (!j.is_object())
    return empty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

/// A key such as "@_user_1" at `at`, not followed by more of a key (so
/// "@_user_1" does not match "@_user_10").
bool key_at(const std::string& text, size_t at, const std::string& key) {
  if (text.compare(at, key.size(), key) != 0)
    return false;
  auto next = at + key.size();
  if (next >= text.size())
    return true;
  auto c = static_cast<unsigned char>(text[next]);
  return !(std::isalnum(c) || c == '_');
}

bool is_bot(const json& mention, const std::string& bot_open_id) {
  const auto& id = obj_of(mention, "id");
  auto open_id = str_of(id, "open_id");
  if (!bot_open_id.empty())
    return open_id == bot_open_id;
  // Without the bot's own id, lark's heuristic: an app has an open_id
  // but no user_id.
  return str_of(id, "user_id").empty() && open_id.rfind("ou_", 0) == 0;
}

/// Drops a leading mention of the bot (so "/new" reaches the command
/// router) and writes the other mentions as "@name (open_id)".
std::string resolve_mentions(std::string text, const json& mentions,
                             const std::string& bot_open_id) {
  if (!mentions.is_array())
    return text;
  auto lead = text.find_first_not_of(" \t\n");
  for (const auto& m : mentions) {
    auto key = str_of(m, "key");
    if (!key.empty() && lead != std::string::npos && key_at(text, lead, key)
        && is_bot(m, bot_open_id)) {
      text = trim_space(text.substr(lead + key.size()));
      break;
    }
  }
  for (const auto& m : mentions) {
    auto key = str_of(m, "key");
    if (key.empty())
      continue;
    auto name = str_of(m, "name");
    auto open_id = str_of(obj_of(m, "id"), "open_id");
    std::string with = "@" + (name.empty() ? key.substr(1) : name);
    if (!open_id.empty())
      with += " (" + open_id + ")";
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at)) {
      if (key_at(text, at, key)) {
        text.replace(at, key.size(), with);
        at += with.size();
      } else {
        at += key.size();
      }
    }
  }
  return text;
}

bool mentions_bot(const std::string& raw_content, const json& mentions,
                  const std::string& bot_open_id) {
  if (raw_content.find("@_all") != std::string::npos)
    return true;
  if (mentions.is_array())
    for (const auto& m : mentions)
      if (is_bot(m, bot_open_id))
        return true;
  return false;
}

std::string post_block(const json& block, std::vector<std::string>& images) {
  if (!block.is_object() || !block.contains("content")
      || !block["content"].is_array())
    return "";
  std::vector<std::string> texts;
  if (auto title = str_of(block, "title"); !title.empty())
    texts.push_back(title);
  for (const auto& row : block["content"]) {
    if (!row.is_array())
      continue;
    for (const auto& el : row) {
      auto tag = str_of(el, "tag");
      if (tag == "text" || tag == "a") {
        texts.push_back(str_of(el, "text"));
      } else if (tag == "at") {
        auto user = str_of(el, "user_name");
        texts.push_back("@" + (user.empty() ? std::string{"user"} : user));
      } else if (tag == "code_block") {
        texts.push_back("\n```" + str_of(el, "language") + "\n"
                        + str_of(el, "text") + "\n```\n");
      } else if (tag == "img" && !str_of(el, "image_key").empty()) {
        images.push_back(str_of(el, "image_key"));
      }
    }
  }
  std::string out;
  for (const auto& t : texts)
    out += (out.empty() ? "" : " ") + t;
  return trim_space(out);
}

/// The text of a message of `type` with content `c`; media to fetch in
/// `media`.
std::string body_text(const std::string& type, const json& c,
                      std::vector<media_ref>& media) {
  if (type == "text")
    return str_of(c, "text");
  if (type == "post") {
    std::vector<std::string> images;
    auto text = post_text(c, images);
    for (auto& k : images)
      media.push_back({"image", k, ""});
    return text;
  }
  if (type == "image") {
    if (auto key = str_of(c, "image_key"); !key.empty())
      media.push_back({"image", key, ""});
    return "";
  }
  if (type == "file" || type == "audio" || type == "media") {
    if (auto key = str_of(c, "file_key"); !key.empty())
      media.push_back({type, key, str_of(c, "file_name")});
    else
      return "[" + type + ": missing file_key]";
    return "";
  }
  if (type == "share_chat")
    return "[shared chat: " + str_of(c, "chat_id") + "]";
  if (type == "share_user")
    return "[shared user: " + str_of(c, "user_id") + "]";
  if (type == "share_calendar_event")
    return "[shared calendar event: " + str_of(c, "event_key") + "]";
  if (type == "system")
    return "[system message]";
  if (type == "merge_forward")
    return "[merged forward messages]";
  return "[" + type + "]";
}

} // namespace

std::string post_text(const json& content, std::vector<std::string>& images) {
  const json* root = &content;
  if (content.is_object() && content.contains("post")
      && content["post"].is_object())
    root = &content["post"];
  if (!root->is_object())
    return "";
  if (root->contains("content")) {
    auto t = post_block(*root, images);
    if (!t.empty() || !images.empty())
      return t;
  }
  for (const char* locale : {"zh_cn", "en_us", "ja_jp"})
    if (root->contains(locale)) {
      auto t = post_block((*root)[locale], images);
      if (!t.empty() || !images.empty())
        return t;
    }
  for (const auto& [key, block] : root->items()) {
    auto t = post_block(block, images);
    if (!t.empty() || !images.empty())
      return t;
  }
  return "";
}

parsed_event parse_event(const json& payload, const event_context& ctx) {
  parsed_event out;
  if (!payload.is_object() || !payload.contains("header")) {
    out.why = "malformed event payload (no header)";
    return out;
  }
  auto type = str_of(obj_of(payload, "header"), "event_type");
  if (type != "im.message.receive_v1") {
    out.why = "event " + (type.empty() ? std::string{"?"} : type);
    return out;
  }
  const auto& ev = obj_of(payload, "event");
  const auto& sender = obj_of(ev, "sender");
  const auto& m = obj_of(ev, "message");
  if (str_of(sender, "sender_type") == "bot") {
    out.why = "a bot's message";
    return out;
  }
  auto sender_id = str_of(obj_of(sender, "sender_id"), "open_id");
  out.message_id = str_of(m, "message_id");
  auto chat_id = str_of(m, "chat_id");
  auto chat_type = str_of(m, "chat_type");
  auto msg_type = str_of(m, "message_type");
  if (sender_id.empty() || out.message_id.empty() || chat_id.empty()
      || chat_type.empty() || msg_type.empty()) {
    out.why = "malformed message event (routing fields missing)";
    return out;
  }
  auto raw = str_of(m, "content");
  auto content = json::parse(raw, nullptr, false);
  if (!content.is_object())
    content = json::object();
  const json mentions = m.contains("mentions") ? m["mentions"] : json{};
  bool group = chat_type == "group";
  auto text = body_text(msg_type, content, out.media);
  if (msg_type == "text")
    text = resolve_mentions(text, mentions, ctx.bot_open_id);
  text = trim_space(text);
  if (text.empty() && out.media.empty()) {
    out.why = "no text";
    return out;
  }
  auto root_id = str_of(m, "root_id");
  auto thread_id = str_of(m, "thread_id");
  inbound_msg in;
  in.channel = ctx.channel;
  in.sender_id = sender_id;
  in.chat_id = group ? chat_id : sender_id;
  in.content = text;
  if (group && ctx.topic_isolation)
    in.session_key_override = ctx.channel + ":" + chat_id + ":"
                              + (root_id.empty() ? out.message_id : root_id);
  json meta{{"_is_group", group},
            {"_mentioned",
             !group || mentions_bot(raw, mentions, ctx.bot_open_id)},
            {"_message_id", out.message_id},
            {"message_id", out.message_id},
            {"chat_type", chat_type},
            {"msg_type", msg_type},
            {"parent_id", str_of(m, "parent_id")},
            {"root_id", root_id},
            {"thread_id", thread_id}};
  in.metadata_json = meta.dump();
  out.msg = std::move(in);
  return out;
}

} // namespace nb::feishu

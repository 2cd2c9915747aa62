#include "actors/channels/telegram/telegram_update.hpp"

#include "actors/channels/kit/text_split.hpp"

namespace nb::telegram {

namespace {

using nlohmann::json;

int64_t int_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string str_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool addressed_to_bot(const json& m, const std::string& text,
                      const bot_identity& me) {
  if (chan::mentions(text, me.username))
    return true;
  for (const char* key : {"entities", "caption_entities"}) {
    auto it = m.find(key);
    if (it == m.end() || !it->is_array())
      continue;
    for (auto& e : *it)
      if (e.is_object() && str_of(e, "type") == "text_mention"
          && e.contains("user") && e["user"].is_object()
          && int_of(e["user"], "id") == me.id)
        return true;
  }
  auto r = m.find("reply_to_message");
  return r != m.end() && r->is_object() && r->contains("from")
         && (*r)["from"].is_object() && me.id != 0
         && int_of((*r)["from"], "id") == me.id;
}

/// "/help@my_bot args" -> "/help args": commands work in groups.
std::string strip_command_suffix(std::string text, const std::string& bot) {
  if (text.empty() || text[0] != '/' || bot.empty())
    return text;
  auto at = text.find('@');
  auto space = text.find_first_of(" \n");
  if (at == std::string::npos || (space != std::string::npos && at > space))
    return text;
  auto end = space == std::string::npos ? text.size() : space;
  auto who = text.substr(at + 1, end - at - 1);
  if (chan::mentions("@" + who, bot))
    text.erase(at, end - at);
  return text;
}

} // namespace

parsed_update parse_update(const json& update, const bot_identity& me,
                           const std::string& channel) {
  parsed_update out;
  if (!update.is_object() || !update.contains("update_id")
      || !update["update_id"].is_number_integer()) {
    out.skipped = "no update_id";
    return out;
  }
  out.update_id = update["update_id"].get<int64_t>();
  auto mit = update.find("message");
  if (mit == update.end()) {
    out.skipped = "not a message";
    return out;
  }
  const json& m = *mit;
  if (!m.is_object() || !m.contains("chat") || !m["chat"].is_object()
      || !m["chat"].contains("id")) {
    out.skipped = "message without a chat";
    return out;
  }
  const json& chat = m["chat"];
  const json from = m.value("from", json::object());
  if (!from.is_object() || !from.contains("id")) {
    out.skipped = "message without a sender";
    return out;
  }
  // value("is_bot", false) would throw on a non-boolean is_bot.
  if (from.contains("is_bot") && from["is_bot"] == true) {
    out.skipped = "from a bot";
    return out;
  }
  std::string text = str_of(m, "text");
  if (text.empty())
    text = str_of(m, "caption");
  if (m.contains("photo") && m["photo"].is_array() && !m["photo"].empty()) {
    const json& best = m["photo"].back(); // sizes ascend; take the largest
    if (best.is_object() && best.contains("file_id"))
      out.media.push_back({str_of(best, "file_id"),
                           str_of(best, "file_unique_id"), "image", "",
                           int_of(best, "file_size")});
  }
  if (m.contains("document") && m["document"].is_object()) {
    const json& d = m["document"];
    out.media.push_back({str_of(d, "file_id"), str_of(d, "file_unique_id"),
                         "file", str_of(d, "file_name"),
                         int_of(d, "file_size")});
  }
  if (text.empty() && out.media.empty()) {
    out.skipped = "no text or media";
    return out;
  }
  auto chat_id = chat["id"].is_number_integer()
                   ? std::to_string(chat["id"].get<int64_t>())
                   : str_of(chat, "id");
  auto type = str_of(chat, "type");
  bool group = type == "group" || type == "supergroup";
  inbound_msg in;
  in.channel = channel;
  in.sender_id = std::to_string(int_of(from, "id"));
  in.chat_id = chat_id;
  in.content = strip_command_suffix(text, me.username);
  json meta{{"_is_group", group},
            {"_mentioned", group ? addressed_to_bot(m, text, me) : true},
            {"_message_id", std::to_string(int_of(m, "message_id"))},
            {"message_id", int_of(m, "message_id")},
            {"chat_type", type},
            {"username", str_of(from, "username")},
            {"first_name", str_of(from, "first_name")}};
  auto thread = int_of(m, "message_thread_id");
  if (thread != 0 && m.value("is_topic_message", false) == true) {
    in.session_key_override = channel + ":" + chat_id + ":topic:"
                              + std::to_string(thread);
    meta["message_thread_id"] = thread;
  }
  in.metadata_json = meta.dump();
  out.msg = std::move(in);
  return out;
}

int64_t topic_of(const std::string& session_key) {
  auto p = session_key.rfind(":topic:");
  if (p == std::string::npos)
    return 0;
  try {
    return std::stoll(session_key.substr(p + 7));
  } catch (const std::exception&) {
    return 0;
  }
}

} // namespace nb::telegram

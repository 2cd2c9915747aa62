#include "actors/channels/mochat/mochat_event.hpp"

#include "actors/common/strings.hpp"

namespace nb::mochat {

namespace {

using nlohmann::json;

/// The first of `keys` holding a non-blank string, trimmed.
std::string str_of(const json& obj, std::initializer_list<const char*> keys) {
  if (!obj.is_object())
    return "";
  for (const char* k : keys)
    if (auto it = obj.find(k); it != obj.end() && it->is_string())
      if (auto v = trim_space(it->get<std::string>()); !v.empty())
        return v;
  return "";
}

/// Ids in a mention list: strings, or objects with id / userId / _id.
std::vector<std::string> mention_ids(const json& v) {
  std::vector<std::string> out;
  if (!v.is_array())
    return out;
  for (const auto& item : v) {
    if (item.is_string()) {
      if (auto s = trim_space(item.get<std::string>()); !s.empty())
        out.push_back(s);
    } else if (auto s = str_of(item, {"id", "userId", "_id"}); !s.empty()) {
      out.push_back(s);
    }
  }
  return out;
}

json object_or_empty(const json& v) {
  return v.is_object() ? v : json::object();
}

/// A message.add event as the watch payloads carry them.
json message_event(const std::string& id, const std::string& author,
                   const json& content, const json& meta,
                   const std::string& group_id, const std::string& converse_id,
                   const json& timestamp, const json& author_info) {
  json payload{{"messageId", id},     {"author", author},
               {"content", content},  {"meta", object_or_empty(meta)},
               {"groupId", group_id}, {"converseId", converse_id}};
  if (!author_info.is_null())
    payload["authorInfo"] = object_or_empty(author_info);
  return {{"type", "message.add"},
          {"timestamp", timestamp.is_string() ? timestamp : json{}},
          {"payload", std::move(payload)}};
}

std::string text_of(const json& v) {
  return v.is_string()   ? v.get<std::string>()
         : v.is_number() ? v.dump()
                         : std::string{};
}

} // namespace

std::optional<watch_batch> read_watch(const json& payload, std::string& why) {
  auto id = str_of(payload, {"sessionId"});
  if (id.empty()) {
    why = payload.is_object() ? "watch payload without a sessionId"
                              : "watch payload is not an object";
    return std::nullopt;
  }
  watch_batch b;
  b.target_id = id;
  if (auto c = payload.find("cursor");
      c != payload.end() && c->is_number_integer() && c->get<int64_t>() >= 0)
    b.cursor = c->get<int64_t>();
  if (auto ev = payload.find("events"); ev != payload.end() && ev->is_array()) {
    b.has_events = true;
    for (const auto& e : *ev) {
      if (!e.is_object())
        continue;
      if (auto s = e.find("seq"); s != e.end() && s->is_number_integer())
        b.max_seq = std::max(b.max_seq, s->get<int64_t>());
      b.events.push_back(e);
    }
  }
  return b;
}

bool mentions_agent(const json& payload, const std::string& agent_user_id) {
  if (auto meta = payload.find("meta");
      meta != payload.end() && meta->is_object()) {
    for (const char* flag : {"mentioned", "wasMentioned"})
      if (auto f = meta->find(flag); f != meta->end() && *f == true)
        return true;
    if (!agent_user_id.empty())
      for (const char* list :
           {"mentions", "mentionIds", "mentionedUserIds", "mentionedUsers"})
        if (auto l = meta->find(list); l != meta->end())
          for (const auto& id : mention_ids(*l))
            if (id == agent_user_id)
              return true;
  }
  if (agent_user_id.empty())
    return false;
  auto c = payload.find("content");
  if (c == payload.end() || !c->is_string())
    return false;
  const auto& text = c->get_ref<const std::string&>();
  return text.find("<@" + agent_user_id + ">") != std::string::npos
         || text.find("@" + agent_user_id) != std::string::npos;
}

std::string content_text(const json& content) {
  if (content.is_string())
    return trim_space(content.get<std::string>());
  if (content.is_null())
    return "";
  return content.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<message_add> read_message_add(const mochat_config& cfg,
                                            const std::string& target_id,
                                            target_kind kind, const json& event,
                                            std::string& why) {
  if (!event.is_object() || event.value("type", json{}) != "message.add") {
    why = "not a message.add event";
    return std::nullopt;
  }
  // find, not operator[]: on a const object a missing key is undefined
  // behaviour (a read past the map's end), not null.
  auto found = event.find("payload");
  if (found == event.end() || !found->is_object()) {
    why = "malformed message.add: no payload object";
    return std::nullopt;
  }
  const auto& payload = *found;
  auto author = str_of(payload, {"author"});
  if (author.empty()) {
    why = "malformed message.add: no author";
    return std::nullopt;
  }
  if (!cfg.agent_user_id.empty() && author == cfg.agent_user_id) {
    why = "the agent's own message";
    return std::nullopt;
  }
  message_add m;
  m.message_id = str_of(payload, {"messageId"});
  m.group_id = str_of(payload, {"groupId"});
  m.mentioned = mentions_agent(payload, cfg.agent_user_id);
  bool is_group = !m.group_id.empty();
  m.needs_mention = kind == target_kind::panel && is_group
                    && requires_mention(cfg, target_id, m.group_id);
  auto info = object_or_empty(payload.value("authorInfo", json{}));
  auto sender_name = str_of(info, {"nickname", "email"});
  auto sender_username = str_of(info, {"agentId"});
  m.sender_label = !sender_name.empty()       ? sender_name
                   : !sender_username.empty() ? sender_username
                                              : author;
  auto& msg = m.msg;
  msg.channel = cfg.name;
  msg.sender_id = author;
  msg.chat_id = target_id;
  msg.content = content_text(payload.value("content", json{}));
  if (msg.content.empty())
    msg.content = "[empty message]";
  json meta{{"_message_id", m.message_id},
            {"_is_group", is_group},
            {"_mentioned", m.mentioned || !is_group},
            {"group_id", m.group_id},
            {"sender_name", sender_name},
            {"sender_username", sender_username},
            {"target_kind", kind == target_kind::panel ? "panel" : "session"},
            {"timestamp", event.value("timestamp", json{})}};
  if (m.message_id.empty())
    meta.erase("_message_id");
  msg.metadata_json = meta.dump(-1, ' ', false, json::error_handler_t::replace);
  return m;
}

std::optional<std::pair<std::string, json>>
read_notify_message(const json& payload) {
  auto group_id = str_of(payload, {"groupId"});
  auto panel_id = str_of(payload, {"converseId", "panelId"});
  if (group_id.empty() || panel_id.empty())
    return std::nullopt;
  auto id = text_of(payload.value("_id", json{}));
  if (id.empty())
    id = text_of(payload.value("messageId", json{}));
  return std::pair{panel_id,
                   message_event(id, text_of(payload.value("author", json{})),
                                 payload.value("content", json{}),
                                 payload.value("meta", json{}), group_id,
                                 panel_id, payload.value("createdAt", json{}),
                                 payload.value("authorInfo", json{}))};
}

std::vector<json> read_panel_messages(const json& data,
                                      const std::string& panel_id) {
  std::vector<json> out;
  if (!data.is_object())
    return out;
  auto msgs = data.find("messages");
  if (msgs == data.end() || !msgs->is_array())
    return out;
  auto group = text_of(data.value("groupId", json{}));
  for (auto it = msgs->rbegin(); it != msgs->rend(); ++it) {
    if (!it->is_object())
      continue;
    const auto& m = *it;
    out.push_back(message_event(
      text_of(m.value("messageId", json{})), text_of(m.value("author", json{})),
      m.value("content", json{}), m.value("meta", json{}), group, panel_id,
      m.value("createdAt", json{}), m.value("authorInfo", json{})));
  }
  return out;
}

std::optional<std::pair<std::string, json>>
read_inbox_append(const json& payload) {
  if (!payload.is_object() || payload.value("type", json{}) != "message")
    return std::nullopt;
  auto found = payload.find("payload"); // not operator[]: see above
  if (found == payload.end() || !found->is_object()
      || !str_of(*found, {"groupId"}).empty())
    return std::nullopt;
  const auto& detail = *found;
  auto converse = str_of(detail, {"converseId"});
  if (converse.empty())
    return std::nullopt;
  auto id = text_of(detail.value("messageId", json{}));
  if (id.empty())
    id = text_of(payload.value("_id", json{}));
  auto text = text_of(detail.value("messagePlainContent", json{}));
  if (text.empty())
    text = text_of(detail.value("messageSnippet", json{}));
  return std::pair{
    converse,
    message_event(
      id, text_of(detail.value("messageAuthor", json{})), text,
      json{{"source", "notify:chat.inbox.append"}, {"converseId", converse}},
      "", converse, payload.value("createdAt", json{}), json{})};
}

send_target resolve_target(const std::string& chat_id) {
  auto id = trim_space(chat_id);
  bool forced = false;
  auto lower = ascii_lower(id);
  for (const char* prefix : {"mochat:", "group:", "channel:", "panel:"}) {
    std::string_view p{prefix};
    if (lower.compare(0, p.size(), p) == 0) {
      id = trim_space(id.substr(p.size()));
      forced = p != "mochat:";
      break;
    }
  }
  return {id, !id.empty() && (forced || id.rfind("session_", 0) != 0)};
}

std::string joined_body(const std::vector<message_add>& entries) {
  if (entries.size() == 1)
    return entries[0].msg.content;
  std::string out;
  for (const auto& e : entries) {
    if (!out.empty())
      out += "\n";
    bool group = !e.group_id.empty();
    out += group ? e.sender_label + ": " + e.msg.content : e.msg.content;
  }
  return out;
}

} // namespace nb::mochat

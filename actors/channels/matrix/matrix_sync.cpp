#include "actors/channels/matrix/matrix_sync.hpp"

#include <thread>

namespace nb::matrix {

namespace {

using nlohmann::json;

std::string str_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool names_me(const json& content, const std::string& body,
              const std::string& me) {
  auto m = content.find("m.mentions");
  if (m != content.end() && m->is_object() && m->contains("user_ids")
      && (*m)["user_ids"].is_array())
    for (auto& u : (*m)["user_ids"])
      if (u.is_string() && u.get<std::string>() == me)
        return true;
  return !me.empty() && body.find(me) != std::string::npos;
}

} // namespace

std::optional<sync_batch> read_sync(const json& body, const std::string& me,
                                    const std::string& channel) {
  if (!body.is_object() || !body.contains("next_batch")
      || !body["next_batch"].is_string())
    return std::nullopt;
  sync_batch out;
  out.next_batch = body["next_batch"].get<std::string>();
  auto rooms = body.value("rooms", json::object());
  if (!rooms.is_object())
    return out;
  auto invite = rooms.value("invite", json::object());
  if (invite.is_object())
    for (auto& [id, _] : invite.items())
      out.invites.push_back(id);
  auto join = rooms.value("join", json::object());
  if (!join.is_object())
    return out;
  for (auto& [room_id, room] : join.items()) {
    if (!room.is_object())
      continue;
    int members = 0;
    auto summary = room.value("summary", json::object());
    if (summary.is_object() && summary.contains("m.joined_member_count")
        && summary["m.joined_member_count"].is_number_integer())
      members = summary["m.joined_member_count"].get<int>();
    auto timeline = room.value("timeline", json::object());
    auto events = timeline.is_object() ? timeline.value("events", json::array())
                                       : json::array();
    if (!events.is_array())
      continue;
    for (auto& ev : events) {
      if (!ev.is_object() || str_of(ev, "type").empty()) {
        ++out.malformed;
        continue;
      }
      if (str_of(ev, "type") != "m.room.message")
        continue;
      auto content = ev.value("content", json::object());
      auto sender = str_of(ev, "sender");
      if (!content.is_object() || sender.empty()) {
        ++out.malformed;
        continue;
      }
      auto type = str_of(content, "msgtype");
      auto text = str_of(content, "body");
      if (sender == me || text.empty()
          || (type != "m.text" && type != "m.notice" && type != "m.emote"))
        continue;
      // Without a member count a room is treated as a group chat.
      bool group = members == 0 || members > 2;
      inbound_msg in;
      in.channel = channel;
      in.sender_id = sender;
      in.chat_id = room_id;
      in.content = text;
      in.metadata_json = json{{"_is_group", group},
                              {"_mentioned", !group || names_me(content, text, me)},
                              {"_message_id", str_of(ev, "event_id")},
                              {"event_id", str_of(ev, "event_id")}}
                           .dump();
      out.messages.push_back(std::move(in));
    }
  }
  return out;
}

cs_reply cs_call(chan::http_endpoint& http, const std::string& token,
                 const std::string& method, const std::string& path,
                 const json& body, std::chrono::seconds timeout) {
  cs_reply out;
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto r = http.call(method, path, body.is_null() ? "" : body.dump(),
                       {{"Authorization", "Bearer " + token}}, timeout);
    out = cs_reply{};
    out.status = r.status;
    out.body = r.json;
    out.ok = r.ok() && r.json.is_object();
    if (out.ok)
      return out;
    if (r.status == 0) {
      out.error = r.error;
      return out;
    }
    out.error = "HTTP " + std::to_string(r.status);
    if (r.json.is_object()) {
      out.error += " " + str_of(r.json, "errcode") + ": " + str_of(r.json, "error");
      if (r.json.contains("retry_after_ms")
          && r.json["retry_after_ms"].is_number())
        out.retry_after_s = r.json["retry_after_ms"].get<double>() / 1000;
    }
    if (out.retry_after_s == 0)
      out.retry_after_s = r.retry_after_s;
    if (r.status != 429 || out.retry_after_s > 20)
      return out;
    std::this_thread::sleep_for(std::chrono::milliseconds(
      static_cast<int64_t>(std::max(out.retry_after_s, 0.05) * 1000)));
  }
  return out;
}

} // namespace nb::matrix

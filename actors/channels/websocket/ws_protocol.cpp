#include "actors/channels/websocket/ws_protocol.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "actors/tools/cli_app_mentions.hpp"

namespace nb::ws {

namespace {

using nlohmann::json;

bool id_chars(const std::string& id, size_t max, bool dot) {
  if (id.empty() || id.size() > max)
    return false;
  for (char c : id) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_'
              || c == '-' || c == ':' || (dot && c == '.');
    if (!ok)
      return false;
  }
  return true;
}

// Events go out as text even if a byte of the reply is not UTF-8 (a cut
// multibyte character): replaced, never an exception on the io thread.
std::string to_text(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json meta_of(const outbound_msg& msg) {
  auto meta = json::parse(msg.metadata_json, nullptr, false);
  return meta.is_object() ? meta : json::object();
}

std::string text_of(const json& obj) {
  for (const char* key : {"content", "text", "message"}) {
    auto i = obj.find(key);
    if (i != obj.end() && i->is_string())
      return i->get<std::string>();
  }
  return "";
}

} // namespace

bool valid_chat_id(const std::string& id) {
  return id_chars(id, 64, false);
}

bool valid_agent_request(const std::string& id) {
  return !id.empty() && id.size() <= 32
         && std::all_of(id.begin(), id.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                     || c == '_' || c == '-';
            });
}

bool temporary_chat_id(const std::string& id) {
  return id.starts_with("tmp-");
}

bool valid_client_id(const std::string& id) {
  return id_chars(id, 128, true);
}

std::vector<std::string> events_for(const outbound_msg& msg) {
  std::vector<std::string> out;
  switch (msg.kind) {
    case outbound_kind::delta:
      out.push_back(to_text(json{{"event", "delta"},
                                 {"chat_id", msg.chat_id},
                                 {"text", msg.content},
                                 {"stream_id", msg.stream_id}}));
      break;
    case outbound_kind::stream_end:
      out.push_back(to_text(json{{"event", "stream_end"},
                                 {"chat_id", msg.chat_id},
                                 {"stream_id", msg.stream_id}}));
      break;
    case outbound_kind::retry_wait:
      out.push_back(to_text(json{{"event", "message"},
                                 {"chat_id", msg.chat_id},
                                 {"text", msg.content},
                                 {"kind", "progress"}}));
      break;
    case outbound_kind::progress: {
      // The original's goal_state and goal_status events travel as
      // progress messages marked with its metadata flags.
      auto meta = msg.metadata_json.find("\"_goal_") == std::string::npos
                    ? json::object()
                    : meta_of(msg);
      if (meta.value("_goal_state_sync", false) == true) {
        auto blob = meta.value("goal_state", json::object());
        out.push_back(to_text(json{{"event", "goal_state"},
                                   {"chat_id", msg.chat_id},
                                   {"goal_state", blob}}));
      } else if (meta.value("_goal_status", false) == true) {
        json ev{{"event", "goal_status"},
                {"chat_id", msg.chat_id},
                {"status", meta.value("goal_status", "idle")}};
        if (ev["status"] == "running" && meta.contains("started_at"))
          ev["started_at"] = meta["started_at"];
        if (!msg.stream_id.empty())
          ev["turn_id"] = msg.stream_id;
        out.push_back(to_text(ev));
      } else {
        out.push_back(to_text(json{{"event", "message"},
                                   {"chat_id", msg.chat_id},
                                   {"text", msg.content},
                                   {"kind", "tool_hint"}}));
      }
      break;
    }
    case outbound_kind::final_reply: {
      auto meta = meta_of(msg);
      if (meta.value("streamed", false) != true) {
        json m{{"event", "message"}, {"chat_id", msg.chat_id},
               {"text", msg.content}};
        if (!msg.stream_id.empty())
          m["turn_id"] = msg.stream_id;
        if (msg.is_error)
          m["error"] = true;
        out.push_back(to_text(m));
      }
      // Only a turn's own reply (it carries the turn's id) ends the turn;
      // the message tool's messages, pairing notes and answers to commands
      // sent during a turn arrive while it still runs.
      if (msg.stream_id.empty())
        break;
      json end{{"event", "turn_end"},
               {"chat_id", msg.chat_id},
               {"turn_id", msg.stream_id}};
      // The turn's usage, the model's window and the goal (REFERENCE §12.4).
      for (const char* key : {"usage", "context_window_tokens", "goal_state"})
        if (auto v = meta.find(key); v != meta.end())
          end[key] = *v;
      out.push_back(to_text(end));
      break;
    }
  }
  return out;
}

std::string ready_event(const std::string& chat_id,
                        const std::string& client_id) {
  return to_text(json{{"event", "ready"},
                      {"chat_id", chat_id},
                      {"client_id", client_id}});
}

std::string attached_event(const std::string& chat_id) {
  return to_text(json{{"event", "attached"}, {"chat_id", chat_id}});
}

std::string error_event(const std::string& detail) {
  return to_text(json{{"event", "error"}, {"detail", detail}});
}

std::variant<client_command, std::string> parse_client_frame(
  const std::string& text) {
  auto doc = json::parse(text, nullptr, false);
  client_command cmd;
  if (doc.is_discarded() || doc.is_string() || doc.is_number()) {
    // Legacy clients send the bare text.
    cmd.content = doc.is_string() ? doc.get<std::string>() : text;
    if (cmd.content.empty())
      return std::string{"empty message"};
    return cmd;
  }
  if (!doc.is_object())
    return std::string{"expected a JSON object or a plain text"};
  auto type = doc.value("type", json()).is_string()
                ? doc["type"].get<std::string>() : std::string{};
  auto chat = doc.find("chat_id");
  if (chat != doc.end() && !chat->is_null()) {
    if (!chat->is_string() || !valid_chat_id(chat->get<std::string>()))
      return std::string{"chat_id must match ^[A-Za-z0-9_:-]{1,64}$"};
    cmd.chat_id = chat->get<std::string>();
  }
  if (type == "new_chat") {
    cmd.kind = client_command::new_chat;
    return cmd;
  }
  if (type == "attach") {
    if (cmd.chat_id.empty())
      return std::string{"attach needs a chat_id"};
    cmd.kind = client_command::attach;
    return cmd;
  }
  if (!type.empty() && type != "message")
    return "unknown type \"" + type.substr(0, 40)
           + "\" (expected new_chat, attach or message)";
  cmd.content = text_of(doc);
  if (cmd.content.empty())
    return std::string{"a message needs a non-empty content"};
  if (auto apps = doc.find("cli_apps"); apps != doc.end())
    if (auto kept = normalize_cli_app_mentions(*apps); !kept.empty())
      cmd.cli_apps = kept.dump();
  return cmd;
}

bool same_secret(const std::string& a, const std::string& b) {
  // Only the length may leak; the bytes are compared in constant time.
  if (a.size() != b.size() || b.empty())
    return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

} // namespace nb::ws

// Input another session sent (send_session_message): never a command, and
// its turn is told who wrote it, as the original's runtime context does.
#include <nlohmann/json.hpp>

#include "actors/session/session_steps.hpp"

namespace nb {

namespace {

/// The envelope of a session message, or null.
nlohmann::json mail_envelope(const std::string& metadata_json) {
  if (metadata_json.find(session_message_meta_key) == std::string::npos)
    return nullptr;
  auto meta = nlohmann::json::parse(metadata_json, nullptr, false);
  if (!meta.is_object() || !meta.contains(session_message_meta_key)
      || !meta[session_message_meta_key].is_object())
    return nullptr;
  return meta[session_message_meta_key];
}

} // namespace

bool never_a_command(const inbound_msg& in) {
  return in.channel == "system" || !mail_envelope(in.metadata_json).is_null();
}

std::string session_mail_note(const std::string& metadata_json) {
  auto env = mail_envelope(metadata_json);
  if (env.is_null() || !env.contains("source_handle")
      || !env["source_handle"].is_string())
    return {};
  auto note = "Sent by @" + env["source_handle"].get<std::string>()
              + ", another session of this agent.";
  if (env.value("expect_reply", false))
    note += " It waits for an answer: reply with send_session_message.";
  return note;
}

} // namespace nb

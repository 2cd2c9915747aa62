// The frames of nanobot's WhatsApp bridge (bridge/src/server.ts): what it
// sends us (message, qr, status, sent, error) turned into values, and the
// commands we send it (auth, send, send_media).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"

namespace nb::whatsapp {

struct bridge_frame {
  enum kind_t { message, qr, status, sent, error, other, malformed };
  kind_t kind = other;
  inbound_msg msg;      ///< message: ready for the manager (media as sent)
  std::string message_id; ///< message: WhatsApp's id (dedup key)
  std::string text;     ///< qr: the code; status: the state; error: why
  std::string to;       ///< sent/error: the chat the command was for
  std::string msg_id;   ///< sent/error: our command id when echoed
};

/// Reads one text frame. A message frame without id, sender or anything to
/// say is `malformed` (`text` says why); an unknown type is `other`.
bridge_frame read_bridge_frame(const std::string& text,
                               const std::string& channel);

/// The sender's phone number (digits, no '+') from the bridge's `pn` and
/// `sender` JIDs: the one on s.whatsapp.net, else a bare number, else the
/// LID's user part.
std::string sender_number(const std::string& pn, const std::string& sender);

/// {"type":"auth","token"}: the first frame of every connection.
nlohmann::json auth_frame(const std::string& token);
/// {"type":"send","to","text"}.
nlohmann::json send_frame(const std::string& to, const std::string& text);
/// {"type":"send_media","to","filePath","mimetype","fileName","caption"?}.
nlohmann::json send_media_frame(const std::string& to,
                                const std::string& path,
                                const std::string& caption);

} // namespace nb::whatsapp

// The WebSocket channel's wire protocol (REFERENCE §12.4), without sockets:
// server events from outbound messages, client frames to commands.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "messages/chat.hpp"

namespace nb::ws {

/// chat ids are capabilities: ^[A-Za-z0-9_:-]{1,64}$
bool valid_chat_id(const std::string& id);
/// Chat ids starting "tmp-" are temporary chats (the WebUI's "Temporary
/// chat", issue 20): their messages are marked "_temporary", so the inbox
/// does not journal them and their session keeps its transcript in memory
/// only and is never consolidated into memory.
bool temporary_chat_id(const std::string& id);
/// client ids: 1-128 of [A-Za-z0-9_.:-]
bool valid_client_id(const std::string& id);
/// An agent id as the connect URL may ask for one: [a-z0-9_-]{1,32}.
bool valid_agent_request(const std::string& id);

/// The server events (JSON texts) that carry `msg` to a browser: delta,
/// stream_end, message (kind "tool_hint" for progress), and for a final
/// reply a message (unless its text was streamed) followed by turn_end.
std::vector<std::string> events_for(const outbound_msg& msg);

std::string ready_event(const std::string& chat_id,
                        const std::string& client_id);
std::string attached_event(const std::string& chat_id);
std::string error_event(const std::string& detail);

/// What a client frame asks for.
struct client_command {
  enum kind_t { message, new_chat, attach } kind = message;
  std::string chat_id; ///< empty: the connection's current chat
  std::string content;
  /// The CLI apps the WebUI attached ("cli_apps"), normalized, as a JSON
  /// array's text ("" = none).
  std::string cli_apps;
};

/// Parses a client frame: a plain string or {"content"|"text"|"message"}
/// for the current chat; {"type":"new_chat"}, {"type":"attach","chat_id"},
/// {"type":"message","chat_id","content"[,"cli_apps"]}. The error text says what is
/// wrong (sent back as an error event; the connection stays open).
std::variant<client_command, std::string> parse_client_frame(
  const std::string& text);

/// Constant-time comparison for tokens.
bool same_secret(const std::string& a, const std::string& b);

} // namespace nb::ws

// What Mochat's events carry, read as pure functions: the watch payloads of
// claw.session.events / claw.panel.events ({sessionId, cursor, events:
// [{seq, type, timestamp, payload}]}), the notify:chat.* events turned into
// the same message.add shape, and a message.add turned into an inbound_msg.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/channels/mochat/mochat_config.hpp"
#include "messages/chat.hpp"

namespace nb::mochat {

/// Which kind of conversation an event belongs to: a session (a direct
/// conversation with a cursor) or a panel (a group's channel).
enum class target_kind { session, panel };

/// A watch payload, read.
struct watch_batch {
  std::string target_id; ///< the payload's sessionId (panels use it too)
  std::optional<int64_t> cursor;
  bool has_events = false;            ///< "events" was a list
  std::vector<nlohmann::json> events; ///< the objects among them, in order
  int64_t max_seq = -1;               ///< highest integer seq among them
};

/// nullopt with `why` when `payload` is not an object with a sessionId.
std::optional<watch_batch> read_watch(const nlohmann::json& payload,
                                      std::string& why);

/// One message.add event, read.
struct message_add {
  inbound_msg msg; ///< channel, sender (author), chat (target), content,
                   ///< metadata (_message_id, _is_group, _mentioned, ...)
  std::string message_id;
  std::string group_id;
  bool mentioned = false;
  /// A group message that must mention the agent to be answered.
  bool needs_mention = false;
  std::string sender_label; ///< nickname, agent id or author
};

/// Reads a message.add `event` of `target_id`. nullopt with `why` when it
/// is not one, has no author, or is the agent's own message.
std::optional<message_add> read_message_add(const mochat_config& cfg,
                                            const std::string& target_id,
                                            target_kind kind,
                                            const nlohmann::json& event,
                                            std::string& why);

/// notify:chat.message.*: a panel message as a message.add event and its
/// panel id; nullopt when it lacks a groupId or panel (converseId).
std::optional<std::pair<std::string, nlohmann::json>>
read_notify_message(const nlohmann::json& payload);

/// notify:chat.inbox.append of a direct message: its converseId and the
/// message as a message.add event; nullopt for anything else.
std::optional<std::pair<std::string, nlohmann::json>>
read_inbox_append(const nlohmann::json& payload);

/// The answer of /api/claw/groups/panels/messages ({groupId, messages},
/// newest first) as message.add events of `panel_id`, oldest first.
std::vector<nlohmann::json> read_panel_messages(const nlohmann::json& data,
                                                const std::string& panel_id);

/// The mention test of the original: meta.mentioned / meta.wasMentioned,
/// the agent among meta's mention id lists, else "<@id>" or "@id" in the
/// text.
bool mentions_agent(const nlohmann::json& payload,
                    const std::string& agent_user_id);

/// A message's content as text: strings trimmed, anything else as JSON.
std::string content_text(const nlohmann::json& content);

/// Where a reply goes: chat ids starting "session_" are sessions, others
/// panels; "mochat:", "group:", "channel:" and "panel:" prefixes are
/// dropped (the last three force a panel).
struct send_target {
  std::string id;
  bool is_panel = false;
};
send_target resolve_target(const std::string& chat_id);

/// Several waiting messages as one text: in a group each line is
/// "<sender>: <text>".
std::string joined_body(const std::vector<message_add>& entries);

} // namespace nb::mochat

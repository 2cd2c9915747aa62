// A Socket Mode events_api envelope turned into what the manager needs,
// and Markdown turned into Slack's mrkdwn.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"

namespace nb::slack {

/// Reads the event of an events_api payload ("message" or "app_mention").
/// Bot messages, edits and other subtypes give nullopt with `why` set.
/// Channel messages are groups; with `reply_in_thread` (or when already in
/// a thread) their session key is "<channel>:<chat>:<thread_ts>", which is
/// also where the answer goes. `dedup_key` is "<chat>:<ts>" (Slack sends
/// a message and its app_mention, and re-sends unacknowledged envelopes).
std::optional<inbound_msg> parse_event(const nlohmann::json& payload,
                                       const std::string& bot_user,
                                       const std::string& channel,
                                       bool reply_in_thread,
                                       std::string& dedup_key,
                                       std::string& why);

/// The thread_ts encoded in a session key "<channel>:<chat>:<ts>", or "".
std::string thread_of(const std::string& session_key,
                      const std::string& chat_id);

/// **bold** -> *bold*, [t](u) -> <u|t>, headings -> *bold*, with &, < and
/// > escaped as Slack asks.
std::string to_mrkdwn(const std::string& md);

} // namespace nb::slack

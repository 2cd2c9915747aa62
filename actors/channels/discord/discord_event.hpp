// A Gateway MESSAGE_CREATE turned into what the channel manager needs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"

namespace nb::discord {

/// What the adapter knows about the guilds it is in.
struct gateway_view {
  std::string bot_id;
  std::map<std::string, std::string> thread_parent; ///< thread -> channel
  std::vector<std::string> allow_channels;          ///< empty = all
};

/// Remembers threads from GUILD_CREATE, THREAD_CREATE, THREAD_UPDATE and
/// THREAD_LIST_SYNC, so their messages get their own sessions.
void note_threads(gateway_view& view, const std::string& type,
                  const nlohmann::json& d);

/// Reads a MESSAGE_CREATE payload. Messages of bots (this one included),
/// without text or attachments, or from channels outside allowChannels give
/// nullopt with `why` set. Guild messages are groups (`_mentioned` when
/// the bot is in `mentions` or <@id> is in the text, which is then
/// removed); thread messages get key "<channel>:<parent>:thread:<thread>".
std::optional<inbound_msg> parse_message(const nlohmann::json& d,
                                         const gateway_view& view,
                                         const std::string& channel,
                                         std::string& why);

} // namespace nb::discord

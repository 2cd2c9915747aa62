// channels.discord: the keys the Discord adapter reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nb::discord {

struct discord_config {
  std::string name = "discord";
  std::string token;
  std::string api_base = "https://discord.com/api/v10";
  std::string gateway_url; ///< "" = ask GET /gateway/bot
  /// GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT
  int64_t intents = 37377;
  std::vector<std::string> allow_channels; ///< empty = every channel
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
discord_config parse_discord_config(const std::string& name,
                                    const std::string& raw_json,
                                    std::string& error);

} // namespace nb::discord

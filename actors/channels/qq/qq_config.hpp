// channels.qq: the keys the official QQ bot adapter reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nb::qq {

struct qq_config {
  std::string name = "qq";
  std::string app_id;
  std::string secret; ///< the AppSecret ("clientSecret" in the token call)
  std::string api_base = "https://api.sgroup.qq.com";
  std::string token_base = "https://bots.qq.com";
  std::string gateway_url; ///< "" = ask GET /gateway
  /// GROUP_AND_C2C_EVENT (1 << 25): C2C messages and group @-messages.
  int64_t intents = int64_t{1} << 25;
  bool markdown = false;                        ///< msgFormat "markdown"
  std::string ack_message = "⏳ Processing..."; ///< "" = no ack
  int64_t max_media_bytes = 200LL * 1024 * 1024;
  std::string media_dir; ///< <config dir>/media/<name>
  /// <config dir>/qq/<name>-groups.json: the chats known to be groups
  /// ("" = not kept).
  std::string groups_file;
  /// tools.ssrfWhitelist: networks a fetched link may reach although they
  /// are internal (set by make_channel, not a channel key).
  std::vector<std::string> ssrf_whitelist;
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
qq_config parse_qq_config(const std::string& name, const std::string& raw_json,
                          const std::string& media_root, std::string& error);

} // namespace nb::qq

// channels.dingtalk: the keys the DingTalk adapter reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nb::dingtalk {

struct dingtalk_config {
  std::string name = "dingtalk";
  std::string client_id;     ///< the app's AppKey; also the robotCode
  std::string client_secret; ///< the app's AppSecret (never logged)
  std::string api_base = "https://api.dingtalk.com";
  /// Group chats get one session per sender instead of one per group.
  bool group_user_isolation = false;
  /// One-to-one chats are refused with a notice (groups only).
  bool disable_private_chat = false;
  int64_t max_media_bytes = 20 * 1024 * 1024;
  std::string media_dir; ///< where received pictures and files are saved
  /// A link in a reply is fetched for upload: redirects are refused unless
  /// allowRemoteMediaRedirects, and then go only to the same host or one
  /// of remoteMediaRedirectAllowedHosts (the original's keys).
  bool allow_remote_media_redirects = false;
  std::vector<std::string> remote_media_redirect_allowed_hosts;
  /// tools.ssrfWhitelist: networks a fetched link may reach although they
  /// are internal (set by make_channel, not a channel key).
  std::vector<std::string> ssrf_whitelist;
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
dingtalk_config parse_dingtalk_config(const std::string& name,
                                      const std::string& raw_json,
                                      const std::string& media_root,
                                      std::string& error);

} // namespace nb::dingtalk

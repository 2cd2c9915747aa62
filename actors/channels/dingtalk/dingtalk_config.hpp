// channels.dingtalk: the keys the DingTalk adapter reads.
#pragma once

#include <cstdint>
#include <string>

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
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
dingtalk_config parse_dingtalk_config(const std::string& name,
                                      const std::string& raw_json,
                                      const std::string& media_root,
                                      std::string& error);

} // namespace nb::dingtalk

// channels.feishu: the keys the Feishu/Lark adapter reads.
#pragma once

#include <cstdint>
#include <string>

namespace nb::feishu {

struct feishu_config {
  std::string name = "feishu";
  std::string app_id;     ///< cli_...
  std::string app_secret;
  std::string domain = "feishu"; ///< feishu | lark: the default apiBase
  /// https://open.feishu.cn or https://open.larksuite.com unless set.
  std::string api_base;
  std::string react_emoji = "THUMBSUP"; ///< "" = no reaction on receipt
  bool reply_to_message = false; ///< answer as a reply (a thread in groups)
  bool topic_isolation = true;   ///< a group topic is its own session
  bool streaming = true; ///< answers stream into a CardKit card
  int64_t max_media_bytes = 20 * 1024 * 1024;
  std::string media_dir; ///< <config dir>/media/<name>
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
/// encryptKey and verificationToken (webhook mode) are accepted: the long
/// connection's events are neither encrypted nor signed.
feishu_config parse_feishu_config(const std::string& name,
                                  const std::string& raw_json,
                                  const std::string& media_root,
                                  std::string& error);

} // namespace nb::feishu

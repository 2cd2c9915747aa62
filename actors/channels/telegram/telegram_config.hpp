// channels.telegram: the keys the Telegram adapter reads.
#pragma once

#include <cstdint>
#include <string>

namespace nb::telegram {

struct telegram_config {
  std::string name = "telegram";
  std::string token;
  std::string api_base = "https://api.telegram.org";
  bool streaming = true;
  double stream_edit_interval_s = 1.0; ///< between two edits of a stream
  int32_t poll_timeout_s = 25;         ///< getUpdates long-poll timeout
  bool reply_to_message = false;       ///< quote the user's message
  int64_t max_media_bytes = 20 * 1024 * 1024;
  std::string media_dir; ///< where photos/documents are saved
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
telegram_config parse_telegram_config(const std::string& name,
                                      const std::string& raw_json,
                                      const std::string& media_root,
                                      std::string& error);

} // namespace nb::telegram

#include "actors/channels/telegram/telegram_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::telegram {

telegram_config parse_telegram_config(const std::string& name,
                                      const std::string& raw_json,
                                      const std::string& media_root,
                                      std::string& error) {
  chan::config_reader r{name, raw_json};
  telegram_config c;
  c.name = name;
  c.token = r.required_str("token");
  c.api_base = r.str("apiBase", c.api_base);
  c.streaming = r.boolean("streaming", c.streaming);
  c.stream_edit_interval_s
    = r.number("streamEditInterval", c.stream_edit_interval_s, 0, 60);
  c.poll_timeout_s = static_cast<int32_t>(
    r.integer("pollTimeout", c.poll_timeout_s, 0, 50));
  c.reply_to_message = r.boolean("replyToMessage", c.reply_to_message);
  c.max_media_bytes
    = r.integer("maxMediaBytes", c.max_media_bytes, 0, int64_t{1} << 40);
  if (r.str("mode", "polling") != "polling")
    r.fail("mode", "only \"polling\" is supported");
  c.media_dir = media_root + "/" + name;
  error = r.error();
  return c;
}

} // namespace nb::telegram

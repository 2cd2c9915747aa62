#include "actors/channels/slack/slack_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::slack {

slack_config parse_slack_config(const std::string& name,
                                const std::string& raw_json,
                                std::string& error) {
  chan::config_reader r{name, raw_json};
  slack_config c;
  c.name = name;
  c.bot_token = r.required_str("botToken");
  c.app_token = r.required_str("appToken");
  c.api_base = r.str("apiBase", c.api_base);
  while (!c.api_base.empty() && c.api_base.back() == '/')
    c.api_base.pop_back();
  c.reply_in_thread = r.boolean("replyInThread", c.reply_in_thread);
  if (r.str("mode", "socket") != "socket")
    r.fail("mode", "only \"socket\" (Socket Mode) is supported");
  error = r.error();
  return c;
}

} // namespace nb::slack

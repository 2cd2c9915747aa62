// channels.slack: the keys the Slack adapter reads.
#pragma once

#include <string>

namespace nb::slack {

struct slack_config {
  std::string name = "slack";
  std::string bot_token; ///< xoxb-...: Web API calls
  std::string app_token; ///< xapp-...: Socket Mode
  std::string api_base = "https://slack.com/api";
  bool reply_in_thread = true; ///< answer channel messages in a thread
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
slack_config parse_slack_config(const std::string& name,
                                const std::string& raw_json,
                                std::string& error);

} // namespace nb::slack

// A scripted Slack: the Web API (auth.test, apps.connections.open,
// chat.postMessage with 429s) and the Socket Mode WebSocket (hello,
// events_api envelopes re-sent until acknowledged, disconnect), with the
// JSON shapes of api.slack.com.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_slack {
public:
  static constexpr const char* bot_user = "UBOT";
  static constexpr const char* bot_token = "xoxb-test";
  static constexpr const char* app_token = "xapp-test";

  fake_slack();
  ~fake_slack();

  /// "http://127.0.0.1:<port>/api": the apiBase.
  std::string api_base() const;

  /// A message event: channel ids starting with 'D' are DMs ("im").
  static nlohmann::json message(const std::string& channel,
                                const std::string& user,
                                const std::string& text,
                                const std::string& thread_ts = "");
  /// Queues an events_api envelope around `event`; returns its id.
  std::string push_event(nlohmann::json event);
  void push_raw(const std::string& text);

  void drop();
  /// Sends {"type":"disconnect","reason":"refresh_requested"}.
  void ask_refresh();
  /// Acks are not counted: envelopes are re-sent on the next connection.
  void ignore_acks(bool on);
  void limit_posts(int n, int retry_after_s);

  int connections() const;
  bool wait_connections(int n, std::chrono::milliseconds t) const;
  /// Envelope ids acknowledged so far.
  std::vector<std::string> acked() const;
  bool wait_acked(size_t n, std::chrono::milliseconds t) const;
  /// Accepted chat.postMessage bodies.
  std::vector<nlohmann::json> posts() const;
  int post_calls() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test

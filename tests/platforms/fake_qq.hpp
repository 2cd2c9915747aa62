// A scripted QQ bot platform: the token endpoint (getAppAccessToken), the
// OpenAPI (GET /gateway, POST /v2/users|groups/{id}/messages with msg_id /
// msg_seq deduplication and 429 rate limits), the gateway WebSocket (Hello,
// Identify -> READY, heartbeats and ACKs, Resume with replay -> RESUMED,
// Reconnect, Invalid Session, dispatches with sequence numbers) and a file
// host for attachments, with the JSON shapes of bot.q.qq.com/wiki.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_qq {
public:
  static constexpr const char* app_id = "102030";
  static constexpr const char* secret = "qq-secret";

  explicit fake_qq(int heartbeat_ms = 300);
  ~fake_qq();

  /// "http://127.0.0.1:<port>": apiBase and tokenBase.
  std::string base_url() const;
  /// channels.qq for an adapter talking to this server: enabled, the
  /// app's credentials, apiBase and tokenBase, no ackMessage.
  nlohmann::json adapter_config() const;
  std::string gateway_url() const;
  /// "http://127.0.0.1:<port>/files/<name>".
  std::string file_url(const std::string& name) const;
  void host_file(const std::string& name, std::string bytes);

  /// A C2C_MESSAGE_CREATE "d" from `user_openid`.
  static nlohmann::json c2c_message(const std::string& user_openid,
                                    const std::string& content);
  /// A GROUP_AT_MESSAGE_CREATE "d".
  static nlohmann::json group_message(const std::string& group_openid,
                                      const std::string& member_openid,
                                      const std::string& content);

  /// Queues a dispatch; it gets the next sequence number and goes out at
  /// once when a session is live, or is replayed after a Resume.
  void push(const std::string& type, nlohmann::json d);
  void push_raw(const std::string& text);
  /// A Resume also replays the last event the client already saw.
  void replay_overlap(bool on);
  /// Drops the connection without a close frame.
  void drop();
  /// Sends op 7 Reconnect / op 9 Invalid Session (d false) now.
  void ask_reconnect();
  void invalidate_session();
  /// The next `n` message posts get 429 with retry_after `secs`.
  void limit_posts(int n, double secs);
  /// Tokens are issued with this expires_in (a string, as QQ sends it).
  void token_lifetime(int secs);

  int token_fetches() const;
  int identifies() const;
  int resumes() const;
  int heartbeats() const;
  /// The newest sequence number dispatched, and the newest a heartbeat
  /// confirmed (what QQ would replay from on RESUME).
  int64_t last_seq() const;
  int64_t confirmed_seq() const;
  int sessions() const;
  int64_t last_intents() const;
  std::string last_identify_token() const;
  bool wait_sessions(int n, std::chrono::milliseconds t) const;

  /// Accepted posts: {"kind": "users"|"groups", "target", "content",
  /// "markdown", "media", "msg_type", "msg_id", "msg_seq"} in order.
  std::vector<nlohmann::json> posts() const;
  /// Accepted rich media uploads (see fake_qq_upload.hpp).
  std::vector<nlohmann::json> uploads() const;
  int post_calls() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test

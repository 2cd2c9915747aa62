// A scripted Discord: the Gateway (HELLO, IDENTIFY -> READY, heartbeats
// and ACKs, RESUME with replay -> RESUMED, dispatches with sequence
// numbers) and the REST API (GET /gateway/bot, POST channel messages,
// 429 rate limits), with the JSON shapes of discord.com/developers/docs.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_discord {
public:
  static constexpr const char* bot_id = "800";

  explicit fake_discord(std::string token = "disc-token",
                        int heartbeat_ms = 300);
  ~fake_discord();

  /// "http://127.0.0.1:<port>/api/v10": the apiBase.
  std::string api_base() const;
  /// "ws://127.0.0.1:<port>": the Gateway.
  std::string gateway_url() const;

  /// A MESSAGE_CREATE payload ("d"): a DM when `guild` is empty.
  static nlohmann::json message(const std::string& channel,
                                const std::string& author,
                                const std::string& content,
                                const std::string& guild = "",
                                bool mention_bot = false);
  /// Queues a dispatch; it gets the next sequence number and is sent at
  /// once when a session is live, or replayed after a RESUME.
  void push(const std::string& type, nlohmann::json d);
  /// Sends a raw text frame as it is (malformed payloads).
  void push_raw(const std::string& text);

  /// Drops the connection without a close frame.
  void drop();
  /// Stops (or resumes) answering heartbeats with ACKs.
  void ack_heartbeats(bool on);
  /// A RESUME also replays the last event the client already saw.
  void replay_overlap(bool on);
  /// The next `n` message posts get 429 with retry_after `secs`.
  void limit_posts(int n, double secs);

  int identifies() const;
  int resumes() const;
  int heartbeats() const;
  /// The sequence number of the newest dispatch.
  int64_t last_seq() const;
  /// The sequence number the client's last heartbeat confirmed.
  int64_t confirmed_seq() const;
  /// READY or RESUMED sent so far.
  int sessions() const;
  /// The intents of the last IDENTIFY.
  int64_t last_intents() const;
  bool wait_sessions(int n, std::chrono::milliseconds t) const;

  /// Accepted message posts: {"channel_id", "content"} in order.
  std::vector<nlohmann::json> posts() const;
  int post_calls() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test

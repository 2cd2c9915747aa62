// A scripted Matrix homeserver (client-server API v3, spec.matrix.org):
// login, account/whoami, /sync long polling with since tokens, room send
// with transaction-id idempotency, join, 429 M_LIMIT_EXCEEDED, outages.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_matrix {
public:
  static constexpr const char* bot = "@nano:local";
  static constexpr const char* token = "syt_token";
  static constexpr const char* password = "secret";

  fake_matrix();
  ~fake_matrix();

  /// "http://127.0.0.1:<port>": the homeserver.
  std::string base_url() const;

  /// An m.room.message in `room` (joined members: `members`); a mention
  /// of the bot goes into m.mentions.
  void push_text(const std::string& room, const std::string& sender,
                 const std::string& body, int members = 2,
                 bool mention = false);
  /// A raw timeline event.
  void push_event(const std::string& room, nlohmann::json event);
  /// An invite to `room`.
  void invite(const std::string& room);

  void go_down();
  void come_up();
  /// The next /sync answers 200 with a body that is not a sync answer.
  void garbage_sync_once();
  /// The next `n` sends get 429 with retry_after_ms.
  void limit_sends(int n, int retry_after_ms);
  /// The next send is stored but answered 502 (the answer is lost).
  void lose_next_answer();

  /// Events stored by sends (a repeated transaction id stores nothing).
  std::vector<nlohmann::json> sent() const;
  int send_calls() const;
  std::vector<std::string> joined() const;
  int logins() const;
  /// Timeline events a client has confirmed (the newest since token it
  /// sent counts the events before it).
  size_t synced_past() const;
  /// /sync calls that carried a since token: a client past its first sync
  /// (which, like a real client's, skips what came before it).
  int since_syncs() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test

// A scripted NapCat: the OneBot v11 forward WebSocket server (bearer token
// checked at the handshake, lifecycle/heartbeat meta events, message and
// notice events, get_login_info / send_private_msg / send_group_msg
// actions answered by echo) and an HTTP file host for image segments.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_napcat {
public:
  static constexpr int64_t self_id = 10001;

  explicit fake_napcat(std::string token = "nap-token");
  ~fake_napcat();

  /// "ws://127.0.0.1:<port>": the wsUrl.
  std::string ws_url() const;
  /// "http://127.0.0.1:<port>/img/<name>": an image of `bytes` bytes.
  std::string image_url(const std::string& name) const;
  void host_image(const std::string& name, std::string bytes);

  /// A private message event from `user`.
  static nlohmann::json private_message(int64_t user, const std::string& text,
                                        int64_t message_id);
  /// A group message event; `at_bot` puts an "at" segment for the bot first.
  static nlohmann::json group_message(int64_t group, int64_t user,
                                      const std::string& text,
                                      int64_t message_id, bool at_bot = false);

  /// Queues an event; it goes out on the live connection (or, while none
  /// is up, once the client is back).
  void push(nlohmann::json event);
  /// Sends a text frame as it is (malformed frames).
  void push_raw(const std::string& text);
  /// The next connection also gets the last event again (same message_id).
  void resend_last_on_reconnect(bool on);

  /// Drops the connection without a close frame.
  void drop();
  /// The next `n` sends are answered with status "failed", retcode 1200.
  void fail_sends(int n);
  /// Sends are taken but not answered until this is switched off.
  void hold_answers(bool on);
  /// Waits until `n` sends are held unanswered.
  bool wait_held(size_t n, std::chrono::milliseconds t) const;

  int connections() const;
  bool wait_connections(int n, std::chrono::milliseconds t) const;
  /// Handshakes refused for a wrong token.
  int refused() const;
  /// Accepted sends: {"action", "group_id"/"user_id", "text", "media": the
  /// other segments, each {"type", "bytes" and "base64_chars" for an
  /// inline file, else "file"; "name" when given}} in order.
  std::vector<nlohmann::json> sends() const;
  int send_calls() const;
  bool wait_sends(size_t n, std::chrono::milliseconds t) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test

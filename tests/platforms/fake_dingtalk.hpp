// A scripted DingTalk: the OpenAPI (gateway/connections/open, the app
// access token, robot batchSend and group send with throttling answers,
// messageFiles/download) and the Stream mode WebSocket (SYSTEM ping and
// disconnect, CALLBACK robot messages sent again until acknowledged),
// with the JSON shapes of open.dingtalk.com and the Stream SDKs.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_dingtalk {
public:
  static constexpr const char* client_id = "dingappkey";
  static constexpr const char* client_secret = "s3cret-dt";

  fake_dingtalk();
  ~fake_dingtalk();

  /// "http://127.0.0.1:<port>": the apiBase.
  std::string api_base() const;

  /// The data of a robot text message. `group` empty: a private chat
  /// (conversationType "1") with `staff`; else group `group`.
  static nlohmann::json text(const std::string& staff, const std::string& body,
                             const std::string& group = "",
                             bool at_bot = true);
  /// A picture message whose downloadCode is `code`.
  static nlohmann::json picture(const std::string& staff,
                                const std::string& code);
  /// Serves `bytes` for the downloadCode `code`.
  void add_file(const std::string& code, const std::string& bytes);

  /// Queues a CALLBACK frame on the robot topic; returns its messageId.
  std::string push(const nlohmann::json& data);
  void push_raw(const std::string& text);
  /// Queues a SYSTEM ping with `data`; the answer shows in pongs().
  void ping(const std::string& data);
  /// Queues a SYSTEM disconnect; the client should open a new connection.
  void ask_disconnect();
  void drop();
  /// Acks are recorded but frames stay unacknowledged (sent again on the
  /// next connection), as if the acks were lost.
  void ignore_acks(bool on);
  /// The next `n` sends answer 429 with Retry-After `retry_after_s`.
  void limit_sends(int n, int retry_after_s);

  int opens() const;       ///< connections/open calls that got a ticket
  int connections() const; ///< WebSocket connections
  bool wait_connections(int n, std::chrono::milliseconds t) const;
  int token_calls() const;
  std::vector<std::string> acked() const; ///< messageIds acknowledged
  bool wait_acked(size_t n, std::chrono::milliseconds t) const;
  /// Every ack frame as received.
  std::vector<nlohmann::json> ack_frames() const;
  std::vector<nlohmann::json> pongs() const;
  bool wait_pongs(size_t n, std::chrono::milliseconds t) const;
  /// Accepted sends: {"path", "body", "param"} (param = msgParam parsed).
  std::vector<nlohmann::json> sends() const;
  int send_calls() const;
  /// Accepted media uploads: {"type", "file_name", "bytes", "media_id"}.
  std::vector<nlohmann::json> uploads() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test

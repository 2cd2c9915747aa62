// A minimal blocking WebSocket client over a plain TCP socket (RFC 6455:
// upgrade, masked text frames, reading text frames), for tests. Written by
// hand so the test does not share code with the server it checks.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace nb::test {

class ws_client {
public:
  ws_client() = default;
  ~ws_client();
  ws_client(const ws_client&) = delete;
  ws_client& operator=(const ws_client&) = delete;

  /// Connects to 127.0.0.1:port and upgrades `target`; returns the HTTP
  /// status (101 on success, the refusal's status otherwise, 0: no answer).
  int connect(int port, const std::string& target);

  void send_text(const std::string& text);

  /// One masked frame with any opcode (0x2 binary, 0x1 text with any bytes).
  void send_frame(unsigned char opcode, const std::string& payload);

  /// The status code of the close frame the server sent (0: none yet).
  int close_code() const {
    return close_code_;
  }

  /// The next text frame, or nullopt after `timeout` or a close.
  std::optional<std::string> read_text(std::chrono::milliseconds timeout);

  /// Drops the TCP connection without a close frame (a client that dies).
  void drop();

private:
  bool read_exact(char* out, size_t n, std::chrono::steady_clock::time_point until);
  int fd_ = -1;
  std::string pending_; ///< bytes read past the HTTP response
  int close_code_ = 0;
  std::string message_; ///< a fragmented text message so far
  bool fragmented_ = false;
};

} // namespace nb::test

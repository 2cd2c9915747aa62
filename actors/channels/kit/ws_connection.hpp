// One WebSocket connection (RFC 6455, ws:// or wss://) used by a single
// thread with timeouts: Discord's Gateway and Slack's Socket Mode. Beast
// stays behind this pimpl, in one translation unit.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace nb::chan {

class ws_connection {
public:
  ws_connection();
  ~ws_connection();
  ws_connection(const ws_connection&) = delete;
  ws_connection& operator=(const ws_connection&) = delete;

  /// Opens `url` (ws://host:port/path?query or wss://...; wss verifies the
  /// server against the system CAs), sending `headers` with the handshake
  /// (Authorization...). "" or why it failed.
  std::string connect(const std::string& url, std::chrono::seconds timeout,
                      const std::map<std::string, std::string>& headers = {});
  /// The HTTP status the server answered the last handshake with (101 when
  /// it upgraded, 401 when it refused the credentials; 0: no answer).
  int handshake_status() const;

  /// Decides on a client's handshake from its request headers (names in
  /// lower case; ":target" holds the request's path and query): 0
  /// upgrades, an HTTP status (401, 403...) refuses it.
  using handshake_check
    = std::function<int(const std::map<std::string, std::string>& headers)>;

  /// Takes an accepted TCP socket `fd` and answers the client's handshake
  /// (the server side, for local test servers); `check` may refuse it.
  /// "" or why it failed.
  std::string accept(int fd, std::chrono::seconds timeout,
                     const handshake_check& check = {});

  /// The next frame's payload (text or binary), waiting at most `timeout`;
  /// nullopt when none came (check is_open() to tell a quiet line from a
  /// closed one).
  std::optional<std::string> read(std::chrono::milliseconds timeout);

  /// Sends one text frame. "" or why it failed.
  std::string send(const std::string& text);
  /// Sends one binary frame (Feishu's protobuf frames). "" or why it failed.
  std::string send_binary(const std::string& bytes);

  /// Sends a close frame with `code` and waits briefly for the answer.
  void close(int code = 1000, const std::string& reason = "");
  /// Drops the TCP connection without a close frame (a network failure).
  void drop();

  bool is_open() const;
  /// Why the connection ended: the peer's close code (0: no close frame)
  /// and reason or the transport error.
  int close_code() const;
  const std::string& close_reason() const;

  /// From another thread: makes a blocking connect/read return at once
  /// (and every later call fail).
  void interrupt();
  /// From another thread: makes a waiting read() return now (nullopt, the
  /// connection stays usable), or the next one if none waits; for a thread
  /// that also sends what others hand it.
  void wake();

private:
  std::string write(const std::string& data, bool binary);
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::chan

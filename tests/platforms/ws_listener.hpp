// A WebSocket endpoint on 127.0.0.1 for scripted platform servers: one
// thread accepts connections one after another and runs `serve` on each.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "actors/channels/kit/ws_connection.hpp"

namespace nb::test {

class ws_listener {
public:
  using handler = std::function<void(chan::ws_connection&)>;

  /// Listens on any free port; `serve` runs for each connection in turn.
  /// `check` may refuse a handshake by its headers (an HTTP status).
  explicit ws_listener(handler serve,
                       chan::ws_connection::handshake_check check = {});
  ~ws_listener();

  int port() const { return port_; }
  /// "ws://127.0.0.1:<port>".
  std::string url() const;
  /// True while the listener runs (handlers should stop when false).
  bool running() const { return !stop_.load(); }

private:
  void loop();
  handler serve_;
  chan::ws_connection::handshake_check check_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace nb::test

// One Socket.IO connect attempt on a thread of its own, so that the watch
// loop goes on polling over HTTP while the socket server is slow or silent
// (an attempt may take up to socketConnectTimeoutMs).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "actors/channels/mochat/socketio_client.hpp"

namespace nb::mochat {

class socket_attempt {
public:
  socket_attempt() = default;
  /// Joins a running attempt: its owner interrupts the client first.
  ~socket_attempt();
  socket_attempt(const socket_attempt&) = delete;
  socket_attempt& operator=(const socket_attempt&) = delete;

  /// Opens `client` (socketio_client::open) on the attempt's thread; the
  /// caller leaves `client` alone until collect() (interrupt() aside) and
  /// `done` is called from that thread once it has ended.
  void start(socketio_client& client, std::string url, nlohmann::json auth,
             std::chrono::milliseconds timeout, std::function<void()> done);

  /// Started and not collected yet.
  bool pending() const { return thread_.joinable(); }
  /// The attempt has ended (collect() does not wait).
  bool ended() const { return ended_.load(); }

  struct outcome {
    std::string error; ///< "" when connected
    bool refused = false; ///< the server answered CONNECT_ERROR
  };
  /// Waits for the attempt to end; what came of it.
  outcome collect();

private:
  std::thread thread_;
  std::atomic<bool> ended_{false};
  outcome outcome_; ///< written by the attempt's thread before ended_
};

} // namespace nb::mochat

// The hand-off between the WhatsApp sender (a detached actor) and the
// bridge connection's thread, which alone owns the socket: the bridge has
// one connection for both directions, as in the original.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace nb::whatsapp {

/// One command on its way to the bridge.
struct bridge_command {
  nlohmann::json frame;
  std::string msg_id;
  bool done = false;
  std::string error; ///< "" = the bridge acknowledged it with `sent`
};

class bridge_outbox {
public:
  /// From the sender (blocks): queues `frame` and waits until the bridge
  /// answered it with `sent` ("") or `error` (its text), the connection
  /// went down, or `timeout` passed. Fails at once while not connected.
  std::string submit(nlohmann::json frame, std::chrono::milliseconds timeout);

  /// The connection's side: it is up; `wake` interrupts its read (called
  /// under the outbox's lock: it must not block).
  void attach(std::function<void()> wake);
  /// It is down: everything queued or waiting fails with `why`.
  void detach(const std::string& why);
  /// The oldest queued command (now in flight), or null.
  std::shared_ptr<bridge_command> next();
  /// Answers `cmd` ("" = acknowledged).
  void finish(const std::shared_ptr<bridge_command>& cmd, std::string error);

private:
  std::mutex mx_;
  std::condition_variable cv_;
  std::function<void()> wake_; ///< empty while not connected
  std::string down_why_ = "not connected to the bridge yet";
  std::deque<std::shared_ptr<bridge_command>> queue_;
  std::deque<std::shared_ptr<bridge_command>> in_flight_;
  uint64_t next_id_ = 0;
};

} // namespace nb::whatsapp

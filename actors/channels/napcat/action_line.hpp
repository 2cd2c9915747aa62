// OneBot actions travel on the event WebSocket, which only the inbound
// loop's thread touches. The sender hands its action to this line and
// waits; the loop sends it and routes the answer back by its "echo".
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace nb::napcat {

/// An action's outcome: the answer frame, or why there is none.
struct action_result {
  nlohmann::json answer; ///< the whole frame ({"status","retcode","data"...})
  std::string error;     ///< "" when an answer came
};

class action_line {
public:
  /// Sender side (blocks): sends {"action", "params", "echo"} on the live
  /// connection and waits up to `timeout` for the frame with that echo.
  /// Fails at once when no connection is up, and when the connection ends
  /// before the answer (the action may or may not have run).
  action_result call(const std::string& action, nlohmann::json params,
                     std::chrono::milliseconds timeout);

  /// Loop side: a connection is up; `wake` makes its read return so that
  /// queued frames go out promptly.
  void attach(std::function<void()> wake);
  /// Loop side: the connection ended; waiting calls fail with `why`.
  void detach(const std::string& why);
  /// Loop side: the frames to send now.
  std::deque<std::string> take_outgoing();
  /// Loop side: an answer frame; false when no call waits for `echo`.
  bool answer(const std::string& echo, nlohmann::json frame);

private:
  std::mutex mx_;
  std::condition_variable cv_;
  bool up_ = false;
  std::string down_reason_ = "not connected";
  std::function<void()> wake_;
  std::deque<std::string> outgoing_;
  std::map<std::string, std::optional<nlohmann::json>> waiting_;
  std::map<std::string, std::string> failed_; ///< echo -> why
  uint64_t next_ = 0;
};

} // namespace nb::napcat

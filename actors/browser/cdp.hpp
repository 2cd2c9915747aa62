// Browser: the DevTools protocol over Chromium's pipe. JSON messages
// separated by NUL bytes; commands carry an id and, for a page, the
// flattened session id; answers and events come back on the same pipe.
// Blocking: it runs on the browser actor's own thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace nb {

/// Why a CDP exchange failed.
enum class cdp_failure {
  protocol,  ///< Chromium answered with an error
  timeout,   ///< no answer in time
  crashed,   ///< the pipe closed: Chromium is gone
  cancelled, ///< /stop
};

struct cdp_error : std::runtime_error {
  cdp_failure kind;
  cdp_error(cdp_failure k, const std::string& what)
    : std::runtime_error(what), kind(k) {
  }
};

class cdp_connection {
public:
  using clock = std::chrono::steady_clock;
  /// Sees every event (a message without an id) as it arrives.
  using event_fn = std::function<void(const nlohmann::json&)>;
  /// Polled between reads; true ends the wait with `cancelled`.
  using cancel_fn = std::function<bool()>;

  cdp_connection() = default;

  /// Uses the pipe ends (not owned: the process owns them).
  void attach(int write_fd, int read_fd);
  void detach();
  bool attached() const {
    return write_fd_ >= 0;
  }

  void on_event(event_fn fn) {
    on_event_ = std::move(fn);
  }
  void on_cancel(cancel_fn fn) {
    cancelled_ = std::move(fn);
  }

  /// Sends a command and returns its id without waiting for the answer.
  int64_t send(const std::string& method, const nlohmann::json& params,
               const std::string& session = {});

  /// Sends a command and waits for its result (throws cdp_error).
  nlohmann::json call(const std::string& method,
                      const nlohmann::json& params = nlohmann::json::object(),
                      const std::string& session = {},
                      std::chrono::milliseconds timeout
                      = std::chrono::seconds(30));

  /// Reads and dispatches messages until `until`, or until `done()` holds
  /// (checked after every message). Throws crashed / cancelled.
  void pump_until(clock::time_point until,
                  const std::function<bool()>& done = {});

private:
  /// Reads what is available (waiting at most `wait`); dispatches it.
  void read_some(std::chrono::milliseconds wait);
  void dispatch(std::string_view text);

  int write_fd_ = -1;
  int read_fd_ = -1;
  int64_t next_id_ = 1;
  std::string inbox_;
  std::set<int64_t> waiting_; ///< ids a call() waits for
  std::map<int64_t, nlohmann::json> answers_;
  event_fn on_event_;
  cancel_fn cancelled_;
};

} // namespace nb

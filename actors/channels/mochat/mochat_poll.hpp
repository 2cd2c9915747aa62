// The Mochat HTTP polling fallback's requests, used while the Socket.IO
// connection cannot be: one thread per watched session or panel (as the
// original runs one task each), asking a session's long poll
// (/api/claw/sessions/watch) or reading a panel's latest messages
// (/api/claw/groups/panels/messages). The threads only do the HTTP: each
// answer goes back to the watch loop's thread, which alone keeps cursors and
// seen ids and hands messages on, and then says when (and from which
// cursor) to ask again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "actors/channels/mochat/mochat_api.hpp"
#include "actors/channels/mochat/mochat_event.hpp"

namespace nb::mochat {

/// One answer of the polling endpoints.
struct poll_answer {
  std::string target;
  target_kind kind = target_kind::session;
  api_answer answer;
};

/// The polling endpoint and body for `target`: a session's watch from
/// `cursor` ({sessionId, cursor, timeoutMs, limit}; timeoutMs 0 when
/// `at_once`) or a panel's read ({panelId, limit} with limit kept within
/// 1..100).
std::pair<std::string, nlohmann::json>
poll_request(const mochat_config& cfg, const std::string& target,
             target_kind kind, int64_t cursor, bool at_once);

class poll_workers {
public:
  explicit poll_workers(const mochat_config& cfg);
  ~poll_workers();
  poll_workers(const poll_workers&) = delete;
  poll_workers& operator=(const poll_workers&) = delete;

  /// Starts asking for `target` at once (a session from `cursor`, without
  /// waiting for news when `at_once`) unless a thread asks for it already.
  void ensure(const std::string& target, target_kind kind, int64_t cursor,
              bool at_once);
  /// The next answer, waiting at most `timeout`; nullopt when none came.
  /// Answers that came before stop() are still given.
  std::optional<poll_answer> next(std::chrono::milliseconds timeout);
  /// `target`'s answer is handled: ask again after `pause` (a session from
  /// `cursor`, as ensure() says). Nothing when its thread was stopped.
  void again(const std::string& target, target_kind kind, int64_t cursor,
             bool at_once, std::chrono::milliseconds pause);
  /// Ends every thread, aborting a long poll in flight.
  void stop();
  bool running() const { return !workers_.empty(); }

private:
  struct worker;
  void run(worker& w);

  mochat_config cfg_;
  std::mutex mx_;
  std::condition_variable cv_;
  std::deque<poll_answer> answers_;
  std::map<std::string, std::unique_ptr<worker>> workers_; ///< "kind:id"
};

} // namespace nb::mochat

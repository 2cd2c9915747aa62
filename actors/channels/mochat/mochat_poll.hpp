// The Mochat HTTP polling fallback's requests, used while the Socket.IO
// connection cannot be: for every watched session its long poll
// (/api/claw/sessions/watch), for every panel a read of its latest messages
// (/api/claw/groups/panels/messages), all in flight together on the watch
// loop's thread (the original runs one task each). Each answer goes back to
// the watch loop, which alone keeps cursors and seen ids and hands messages
// on, and then says when (and from which cursor) to ask again.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "actors/channels/kit/http_flights.hpp"
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

/// Every watched target's polls on the caller's thread (the watch loop's):
/// the requests go out together through one http_flights, so N targets
/// hold no thread each, however long Mochat keeps a session's watch
/// waiting. A 429 is waited out (its Retry-After, at most 20 s) up to
/// twice, as rest_api does, without holding up the other targets.
class poller {
public:
  explicit poller(const mochat_config& cfg);

  /// Starts asking for `target` at once (a session from `cursor`, without
  /// waiting for news when `at_once`) unless it is asked for already.
  void ensure(const std::string& target, target_kind kind, int64_t cursor,
              bool at_once);
  /// Runs the polls until an answer comes (given back), `timeout` passes
  /// or wake() is called (nullopt). Answers that came before stop() are
  /// still given.
  std::optional<poll_answer> next(std::chrono::milliseconds timeout);
  /// `target`'s answer is handled: ask again after `pause` (a session from
  /// `cursor`, as ensure() says). Nothing when it was stopped.
  void again(const std::string& target, target_kind kind, int64_t cursor,
             bool at_once, std::chrono::milliseconds pause);
  /// Ends every poll, aborting a long poll in flight.
  void stop();
  bool running() const { return !targets_.empty(); }
  /// From any thread: a waiting next() returns now.
  void wake() { http_.wake(); }

private:
  using steady = std::chrono::steady_clock;

  struct polled_target {
    std::string id;
    target_kind kind = target_kind::session;
    int64_t cursor = 0;
    bool at_once = false;
    std::optional<steady::time_point> due; ///< unset: in flight or handled
    int limited = 0; ///< 429s in a row for this request
  };

  void launch_due(steady::time_point now);
  void landed(uint64_t tag, chan::http_reply reply);

  mochat_config cfg_;
  chan::http_flights http_;
  std::map<std::string, polled_target> targets_; ///< by "kind:id"
  std::map<uint64_t, std::string> tags_;         ///< flight -> target key
  uint64_t next_tag_ = 0;
  std::deque<poll_answer> answers_;
};

} // namespace nb::mochat

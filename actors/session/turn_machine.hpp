// The seven-state turn machine as a pure transition table: no actors, no I/O.
//
//   RESTORE --ok--> COMPACT --ok--> COMMAND --dispatch--> BUILD --ok--> RUN
//                                      |                                 |
//                                      +--shortcut--> DONE               ok
//                                                      ^                 v
//                               RESPOND --ok-----------+   SAVE <--------+
//                                  ^                        |
//                                  +----------ok------------+
//
//   fail: RESTORE, COMPACT, COMMAND, BUILD, RUN --fail--> SAVE (keep what the
//         turn produced, repair the transcript); SAVE --fail--> RESPOND (tell
//         the user); RESPOND --fail--> DONE. Every other pair is an error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "messages/turn.hpp"

namespace nb {

/// Returns the state after `from` on `event`, or nothing when the table has
/// no such transition.
std::optional<turn_state> next_state(turn_state from, turn_event event);

/// Walks one turn through the table and keeps its per-state trace.
class turn_machine {
public:
  /// Starts a turn at RESTORE.
  void start(int64_t now_us);

  /// Ends the current state with `event` at `now_us`. Returns false (and
  /// leaves the machine where it is) when the table has no transition;
  /// error() then describes it.
  bool fire(turn_event event, int64_t now_us);

  turn_state state() const { return state_; }
  bool done() const { return state_ == turn_state::done; }
  /// True once any state reported `fail` during this turn.
  bool failed() const { return failed_; }
  const std::vector<state_trace>& trace() const { return trace_; }
  /// Hands the finished turn's trace over (for its turn_sample): an idle
  /// session keeps none.
  std::vector<state_trace> take_trace() { return std::move(trace_); }
  const std::string& error() const { return error_; }

private:
  turn_state state_ = turn_state::done;
  int64_t entered_us_ = 0;
  bool failed_ = false;
  std::vector<state_trace> trace_;
  std::string error_;
};

} // namespace nb

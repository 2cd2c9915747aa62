// The seven-state turn machine's vocabulary and the per-state trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

namespace nb {

/// The states a turn passes through, in order; `done` is terminal.
enum class turn_state : uint8_t {
  restore,
  compact,
  command,
  build,
  run,
  save,
  respond,
  done,
};

/// What a state's work reports when it ends.
enum class turn_event : uint8_t {
  ok,       ///< the state's work succeeded
  dispatch, ///< COMMAND: not a command, go on to the model
  shortcut, ///< COMMAND: a command answered the message, skip the model
  fail,     ///< the state's work failed; the turn winds down with an error
};

inline constexpr int turn_state_count = 8;
inline constexpr int turn_event_count = 4;

std::string to_string(turn_state x);
std::string to_string(turn_event x);

/// One state's entry in a turn's trace.
struct state_trace {
  turn_state state = turn_state::restore;
  turn_event event = turn_event::ok;
  int64_t duration_us = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, state_trace& x) {
  return f(caf::meta::type_name("state_trace"), x.state, x.event,
           x.duration_us);
}

} // namespace nb

#include "actors/session/turn_machine.hpp"

#include <array>

namespace nb {

namespace {

using ts = turn_state;
using te = turn_event;

struct transition {
  ts from;
  te event;
  ts to;
};

// The whole machine. Anything not listed here is a missing transition.
constexpr std::array<transition, 14> table{{
  {ts::restore, te::ok, ts::compact},
  {ts::compact, te::ok, ts::command},
  {ts::command, te::dispatch, ts::build},
  {ts::command, te::shortcut, ts::done},
  {ts::build, te::ok, ts::run},
  {ts::run, te::ok, ts::save},
  {ts::save, te::ok, ts::respond},
  {ts::respond, te::ok, ts::done},
  {ts::restore, te::fail, ts::save},
  {ts::compact, te::fail, ts::save},
  {ts::command, te::fail, ts::save},
  {ts::build, te::fail, ts::save},
  {ts::run, te::fail, ts::save},
  {ts::save, te::fail, ts::respond},
}};

} // namespace

std::optional<turn_state> next_state(turn_state from, turn_event event) {
  for (const auto& t : table)
    if (t.from == from && t.event == event)
      return t.to;
  // RESPOND has nothing left to wind down to but the end.
  if (from == ts::respond && event == te::fail)
    return ts::done;
  return std::nullopt;
}

void turn_machine::start(int64_t now_us) {
  state_ = turn_state::restore;
  entered_us_ = now_us;
  failed_ = false;
  trace_.clear();
  trace_.reserve(8); // a plain turn's states, in one allocation
  error_.clear();
}

bool turn_machine::fire(turn_event event, int64_t now_us) {
  auto to = next_state(state_, event);
  if (!to) {
    error_ = "No transition from " + to_string(state_) + " on event '"
             + to_string(event) + "'";
    return false;
  }
  trace_.push_back({state_, event, now_us - entered_us_});
  failed_ = failed_ || event == turn_event::fail;
  state_ = *to;
  entered_us_ = now_us;
  return true;
}

} // namespace nb

// The timeouts of an actor's pending requests, kept by the actor itself.
// CAF 0.17's clock is one thread: each `request(dest, timeout, ...)` arms an
// entry there and timed_request cancels it when the answer comes, and each
// of the two woke the clock thread (the turn path made ~20 such wake-ups
// per plain turn, each one a context switch or two on a busy machine; the
// gateway's lazy_clock no longer wakes for an entry due after the one it
// sleeps until, but each entry is still an insert and an erase under the
// clock's lock, and a strong reference held until it goes). An
// actor whose state has a member
//
//   request_deadlines deadlines;
//
// gets its timed_request(...).then(...) timeouts kept here instead: the
// request goes without a clock entry, the answer just leaves the table, and
// one sweep at a time is armed on the clock for the earliest deadline (as a
// request timeout of its own, so the clock drops it when the actor ends and
// holds no reference to it past that). The sweep answers every overdue
// request with sec::request_timeout, as CAF's own timeout does, and arms
// itself again while requests are pending. `await` keeps CAF's clock entry:
// an awaiting actor takes no other message, the sweep included.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <caf/actor_clock.hpp>
#include <caf/behavior.hpp>
#include <caf/duration.hpp>
#include <caf/error.hpp>
#include <caf/message_id.hpp>
#include <caf/sec.hpp>

#include "actors/common/own_timer.hpp"

namespace nb {

class request_deadlines {
public:
  using time_point = caf::actor_clock::time_point;

  void add(caf::message_id id, time_point due) {
    pending_.emplace_back(id.integer_value(), due);
  }

  void remove(caf::message_id id) {
    auto key = id.integer_value();
    auto i = std::find_if(pending_.begin(), pending_.end(),
                          [key](auto& p) { return p.first == key; });
    if (i != pending_.end()) {
      *i = pending_.back();
      pending_.pop_back();
    }
  }

  /// Removes and returns the requests due at `now`.
  std::vector<caf::message_id> take_due(time_point now) {
    std::vector<caf::message_id> due;
    for (size_t i = 0; i < pending_.size();) {
      if (pending_[i].second <= now) {
        due.emplace_back(pending_[i].first);
        pending_[i] = pending_.back();
        pending_.pop_back();
      } else {
        ++i;
      }
    }
    return due;
  }

  /// The earliest deadline (time_point::max() when none is pending).
  time_point earliest() const {
    auto at = time_point::max();
    for (auto& p : pending_)
      at = std::min(at, p.second);
    return at;
  }

  size_t size() const { return pending_.size(); }

  /// When the earliest armed sweep runs (max: none armed).
  time_point armed = time_point::max();

private:
  std::vector<std::pair<uint64_t, time_point>> pending_;
};

namespace detail {

template <class Self>
void arm_deadline_sweep(Self* self, request_deadlines::time_point due);

/// Answers the overdue requests with request_timeout; arms the next sweep.
template <class Self>
void sweep_deadlines(Self* self) {
  auto& table = self->state.deadlines;
  table.armed = request_deadlines::time_point::max();
  for (auto id : table.take_due(self->clock().now()))
    self->eq_impl(id, self->ctrl(), self->context(),
                  caf::make_error(caf::sec::request_timeout));
  if (table.size() > 0)
    arm_deadline_sweep(self, table.earliest());
}

template <class Self>
void arm_deadline_sweep(Self* self, request_deadlines::time_point due) {
  auto& table = self->state.deadlines;
  if (due >= table.armed)
    return; // an earlier sweep looks then, and arms the next
  table.armed = due;
  run_at(self, due, [self] { sweep_deadlines(self); });
}

/// Keeps request `id`'s timeout `d` in the actor's table.
template <class Self>
void keep_deadline(Self* self, caf::message_id id, const caf::duration& d) {
  if (!d.valid())
    return; // infinite
  auto due = self->clock().now();
  due += d;
  self->state.deadlines.add(id, due);
  arm_deadline_sweep(self, due);
}

/// CAF's own clock entry for an awaited request `response` (an awaiting
/// actor takes no other message, the sweep included), under the answer's
/// id as `request(dest, timeout, ...)` arms it, so the answer cancels it.
/// (Not request_response_timeout: it takes the request's id, and from an
/// answer's id it makes an ordinary message's, whose error no answer
/// cancels and which reaches the actor's error handler the timeout later:
/// the inbox's start-up await ended the inbox that way, a minute into a
/// gateway's run.)
template <class Self>
void arm_await_timeout(Self* self, caf::message_id response,
                       const caf::duration& d) {
  if (!d.valid())
    return; // infinite
  auto due = self->clock().now();
  due += d;
  self->clock().set_request_timeout(due, self, response);
}

} // namespace detail

} // namespace nb

// A request with a timeout whose timer goes when the answer comes. CAF 0.17
// arms a clock entry for every `self->request(dest, timeout, ...)` and never
// cancels it (`cancel_request_timeout` has no caller in 0.17.6): the entry,
// and the strong reference to the requester it holds, stay until the timeout
// passes even though the answer came long before. So an actor that ends when
// its last handle goes (a turn's worker) lives on with its state for the
// whole timeout (1 260 s for a model call, 7 200 s for the heartbeat), and a
// long-lived one collects one entry (~190 bytes) per answered request. Use
//
//   timed_request(self, dest, timeout, xs...).then(on_answer, on_error);
//
// instead of `self->request(...)` in event-based actors: the same request and
// the same `sec::request_timeout` error when no answer comes, but each
// handler first cancels the clock entry (from 0.18 on, CAF keeps the timer
// as a disposable beside the request itself). A
// blocking `scoped_actor` needs none of this: it ends with its scope, and an
// actor's end drops its clock entries. An actor with a `request_deadlines
// deadlines` member in its state keeps the timeouts of its `then`s itself,
// without a clock entry per request (request_deadlines.hpp: the turn path's
// actors, where the clock thread's wake-ups cost a context switch each).
#pragma once

#include <type_traits>
#include <utility>

#include <caf/detail/type_list.hpp>
#include <caf/detail/type_traits.hpp>
#include <caf/error.hpp>
#include <caf/message_id.hpp>

#include "actors/common/request_deadlines.hpp"

namespace nb {

namespace detail {

/// `handler` with its exact signature (CAF reads it to type the answer),
/// calling `cancel` (which drops the request's timeout) before it runs.
template <class Cancel, class F, class... Ts>
auto cancelling_timeout(Cancel cancel, F f, caf::detail::type_list<Ts...>) {
  return [cancel, f = std::move(f)](Ts... xs) mutable {
    cancel();
    f(std::forward<Ts>(xs)...);
  };
}

template <class Cancel, class F>
auto cancelling_timeout(Cancel cancel, F f) {
  using args = typename caf::detail::get_callable_trait<F>::arg_types;
  return cancelling_timeout(cancel, std::move(f), args{});
}

/// Whether `Self`'s state keeps its own request deadlines.
template <class Self>
constexpr bool keeps_deadlines = requires(Self* self) {
  self->state.deadlines;
};

} // namespace detail

/// The answer to a `timed_request`: `then` and `await` as on CAF's handle.
template <class Self, class Handle>
class timed_response {
public:
  timed_response(Self* self, Handle handle, caf::duration timeout)
    : self_(self), handle_(std::move(handle)), timeout_(timeout) {
    // nop
  }

  template <class F, class OnError>
  void then(F f, OnError on_error) {
    if constexpr (detail::keeps_deadlines<Self>) {
      detail::keep_deadline(self_, handle_.id(), timeout_);
      auto cancel = [self = self_, id = handle_.id()] {
        self->state.deadlines.remove(id);
      };
      handle_.then(detail::cancelling_timeout(cancel, std::move(f)),
                   detail::cancelling_timeout(cancel, std::move(on_error)));
    } else {
      handle_.then(cancelling(std::move(f)), cancelling(std::move(on_error)));
    }
  }

  /// Without an error handler, an error goes to the actor's error handler.
  template <class F>
  void then(F f) {
    then(std::move(f), default_error_handler());
  }

  template <class F, class OnError>
  void await(F f, OnError on_error) {
    if constexpr (detail::keeps_deadlines<Self>)
      detail::arm_await_timeout(self_, handle_.id(), timeout_);
    handle_.await(cancelling(std::move(f)), cancelling(std::move(on_error)));
  }

  template <class F>
  void await(F f) {
    await(std::move(f), default_error_handler());
  }

private:
  /// Cancels the request's clock entry first.
  template <class F>
  auto cancelling(F f) {
    auto cancel = [self = self_, id = handle_.id()] {
      self->clock().cancel_request_timeout(self, id);
    };
    return detail::cancelling_timeout(cancel, std::move(f));
  }

  auto default_error_handler() {
    return [self = self_](caf::error& err) { self->call_error_handler(err); };
  }

  Self* self_;
  Handle handle_;
  caf::duration timeout_;
};

/// `self->request(dest, timeout, xs...)` whose timeout is cancelled when the
/// answer (or another error) arrives.
template <class Self, class Dest, class Timeout, class... Ts>
auto timed_request(Self* self, const Dest& dest, Timeout timeout,
                   Ts&&... xs) {
  caf::duration d{timeout};
  // An actor that keeps its deadlines arms them in then / await.
  auto handle = self->request(dest,
                              detail::keeps_deadlines<Self> ? caf::duration{}
                                                            : d,
                              std::forward<Ts>(xs)...);
  return timed_response<Self, decltype(handle)>{self, std::move(handle), d};
}

} // namespace nb

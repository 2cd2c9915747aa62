// The actor system's clock (timeouts, delayed sends) without a wake-up per
// entry. CAF 0.17's thread_safe_actor_clock hands every change to its thread
// through a ring buffer: each request timeout armed, and each one cancelled
// when the answer comes, wakes the clock thread, which then sleeps again
// until the same far-off deadline (a model call's 1 260 s). A traced plain
// turn 50 ms apart from the next made ~13 such wake-ups, each a context
// switch on a core the turn needed, besides the waker's futex call.
//
// Here the schedule sits behind a mutex and is changed in place by the
// caller; the thread is woken only when a new entry is due before the
// deadline it sleeps until. A cancellation never wakes it: at worst it
// wakes at the cancelled entry's time and finds nothing due. Expired entries
// are taken out under the lock and shipped (or dropped) after it is
// released, so an actor that a dropped entry held last can end, and cancel
// its own timeouts, without finding the lock taken.
#pragma once

#include <condition_variable>
#include <mutex>
#include <vector>

#include <caf/detail/simple_actor_clock.hpp>

namespace nb {

class lazy_clock final : public caf::detail::simple_actor_clock {
public:
  using super = caf::detail::simple_actor_clock;

  void set_ordinary_timeout(time_point t, caf::abstract_actor* self,
                            caf::atom_value type, uint64_t id) override;
  void set_multi_timeout(time_point t, caf::abstract_actor* self,
                         caf::atom_value type, uint64_t id) override;
  void set_request_timeout(time_point t, caf::abstract_actor* self,
                           caf::message_id id) override;
  void cancel_ordinary_timeout(caf::abstract_actor* self,
                               caf::atom_value type) override;
  void cancel_request_timeout(caf::abstract_actor* self,
                              caf::message_id id) override;
  void cancel_timeouts(caf::abstract_actor* self) override;
  void schedule_message(time_point t, caf::strong_actor_ptr receiver,
                        caf::mailbox_element_ptr content) override;
  void schedule_message(time_point t, caf::group target,
                        caf::strong_actor_ptr sender,
                        caf::message content) override;
  void cancel_all() override;

  /// The clock thread's loop; returns after cancel_dispatch_loop().
  void run_dispatch_loop();
  void cancel_dispatch_loop();

private:
  using lock = std::unique_lock<std::mutex>;
  using dropped = std::vector<unique_delayed_event_ptr>;

  /// After an entry due at `t` was added (lock held): wakes the thread
  /// when it sleeps past `t`.
  void added(lock& guard, time_point t);

  /// Takes the entries matching `pred` of actor `aid` out of the schedule.
  template <class Predicate>
  void take(caf::actor_id aid, Predicate pred, dropped& out);

  std::mutex mx_;
  std::condition_variable cv_;
  /// What the thread sleeps until: time_point::max() with nothing
  /// scheduled, time_point::min() while it is awake and will look again.
  time_point sleeps_until_ = time_point::min();
  bool done_ = false;
};

} // namespace nb

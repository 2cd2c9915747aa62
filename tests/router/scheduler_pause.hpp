// Holds every scheduler thread of an actor system until released, so that
// no event-based actor runs meanwhile: a test can then put messages in
// mailboxes in an order of its choosing (its own thread and the actor
// clock's thread still deliver; the actors see them only after release).
// It races nothing: the order is fixed before any actor looks.
#pragma once

#include <cstddef>
#include <future>
#include <latch>
#include <memory>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

namespace nb::test {

class scheduler_pause {
public:
  /// Returns once every scheduler thread runs one of its holders.
  explicit scheduler_pause(caf::actor_system& sys) {
    auto workers = static_cast<std::ptrdiff_t>(sys.scheduler().num_workers());
    auto held = std::make_shared<std::latch>(workers);
    auto go = release_.get_future().share();
    // A holder blocks the thread that runs it, so each of them ends up on
    // a thread of its own (the others steal the rest).
    for (std::ptrdiff_t i = 0; i < workers; ++i)
      sys.spawn([held, go](caf::event_based_actor*) {
        held->count_down();
        go.wait();
      });
    held->wait();
  }

  scheduler_pause(const scheduler_pause&) = delete;
  scheduler_pause& operator=(const scheduler_pause&) = delete;

  ~scheduler_pause() { resume(); }

  void resume() {
    if (released_)
      return;
    released_ = true;
    release_.set_value();
  }

  /// Whether `a` is alive and waiting with nothing in its mailbox (it did
  /// all it was sent). Only meaningful while paused: nothing runs then.
  /// Reads the mailbox's state without touching it (CAF's size() would
  /// take the messages over as if it were the actor).
  static bool waiting_idle(const caf::strong_actor_ptr& a) {
    auto* s = a ? dynamic_cast<caf::scheduled_actor*>(a->get()) : nullptr;
    return s != nullptr && s->mailbox().blocked();
  }

private:
  std::promise<void> release_;
  bool released_ = false;
};

} // namespace nb::test

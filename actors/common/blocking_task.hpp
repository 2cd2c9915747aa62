// Blocking work (a file read, an fsync, malloc_trim) for an actor that lives
// on the scheduler: the work runs on a thread of its own that starts with it
// and ends with it, so an actor that does such work once in a while needs no
// thread of its own while idle (issue 22: idle threads exit).
//
//   timed_request(self, blocking_task(self, "nb.hb-read", [path] {
//                   return read_text(path);
//                 }),
//                 timeout, caf::get_atom::value)
//     .then([=](std::string& text) { ... }, [=](caf::error& err) { ... });
//
// `work` runs once, when the task is asked (`caf::get_atom`), and its
// result is the answer; an exception it throws is logged and becomes the
// request's error (the handler guard), never a crash. Tasks run side by
// side; work that must stay in order (two writes of one file) starts the
// next task only when the previous one answered (`await` in the lease
// keeper, the newest pending text in the pairing file). Work done for every
// message (the inbox journal, the session store) keeps a long-lived worker:
// a thread per message would cost more than it saves.
//
// Under CAF's deterministic test scheduler (scheduler.policy "testing") the
// spawn sites do not detach (`spawn_blocking`, `spawn_blocking_child`, and
// blocking_task itself): every actor then runs on the test's thread in
// simulated time, so timers (cron, the heartbeat, the lease, idle
// compaction) are tested by advancing the clock instead of sleeping
// (tests/timers).
#pragma once

#include <string>
#include <utility>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/spawn_options.hpp>

#include "actors/common/guard.hpp"
#include "actors/common/thread_name.hpp"

namespace nb {

/// Whether `sys` runs on CAF's deterministic test scheduler.
inline bool deterministic_scheduler(caf::actor_system& sys) {
  return dynamic_cast<caf::scheduler::test_coordinator*>(&sys.scheduler())
         != nullptr;
}

/// `sys.spawn<caf::detached>(xs...)`, except on the deterministic test
/// scheduler, where the actor is scheduled like any other.
template <class... Ts>
auto spawn_blocking(caf::actor_system& sys, Ts&&... xs) {
  if (deterministic_scheduler(sys))
    return sys.spawn(std::forward<Ts>(xs)...);
  return sys.spawn<caf::detached>(std::forward<Ts>(xs)...);
}

/// `self->spawn<caf::detached + Os>(xs...)` (Os: caf::linked, ...), except
/// on the deterministic test scheduler, where it is scheduled like any
/// other.
template <caf::spawn_options Os = caf::no_spawn_options, class Self,
          class... Ts>
caf::actor spawn_blocking_child(Self* self, Ts&&... xs) {
  if (deterministic_scheduler(self->system()))
    return self->template spawn<Os>(std::forward<Ts>(xs)...);
  return self->template spawn<Os + caf::detached>(std::forward<Ts>(xs)...);
}

/// `thread_name`: at most 15 characters, shown by `top -H` while it runs.
template <class Self, class Work>
caf::actor blocking_task(Self* self, const char* thread_name, Work work) {
  bool detached = !deterministic_scheduler(self->system());
  auto body = [thread_name, detached, work = std::move(work)](
                caf::event_based_actor* task) mutable -> caf::behavior {
    if (detached) // else it runs on the test's thread: that keeps its name
      name_thread(thread_name);
    return {
      guard(thread_name,
            [task, work = std::move(work)](caf::get_atom) mutable {
              task->quit();
              return work();
            }),
    };
  };
  if (!detached)
    return self->spawn(std::move(body));
  return self->template spawn<caf::detached>(std::move(body));
}

} // namespace nb

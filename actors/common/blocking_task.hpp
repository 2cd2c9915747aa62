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
#pragma once

#include <string>
#include <utility>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/spawn_options.hpp>

#include "actors/common/guard.hpp"
#include "actors/common/thread_name.hpp"

namespace nb {

/// `thread_name`: at most 15 characters, shown by `top -H` while it runs.
template <class Self, class Work>
caf::actor blocking_task(Self* self, const char* thread_name, Work work) {
  return self->template spawn<caf::detached>(
    [thread_name, work = std::move(work)](
      caf::event_based_actor* task) mutable -> caf::behavior {
      name_thread(thread_name);
      return {
        guard(thread_name,
              [task, work = std::move(work)](caf::get_atom) mutable {
                task->quit();
                return work();
              }),
      };
    });
}

} // namespace nb

// The cron actor's file work (jobs.json and action.jsonl under their lock,
// the Dream cursor) and its waits for the inbox's receipts run as blocking
// tasks (actors/common/blocking_task.hpp), one at a time in the order they
// were asked for: the store is never used by two threads at once, and a
// tick never reads what an edit is still writing. The actor itself lives
// on the scheduler, so an idle scheduler costs no thread (issue 22); each
// piece of work has a thread only while it runs.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "actors/common/blocking_task.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/cron/cron.hpp"

namespace nb {

/// Queues `start`, which begins one piece of file work and calls
/// cron_io_done once it ended; starts it at once when none runs.
void cron_io_queue(cron_pointer self, std::function<void()> start);

/// The running piece ended: starts the next one.
void cron_io_done(cron_pointer self);

/// Runs `work(store)` (returning R) on a thread of its own after the work
/// queued before it, then, in the actor, `done(&result, "")`, or
/// `done(nullptr, why)` when it threw.
template <class R, class Work, class Done>
void cron_io(cron_pointer self, Work work, Done done) {
  cron_io_queue(self, [self, work = std::move(work),
                       done = std::move(done)]() mutable {
    auto out = std::make_shared<std::optional<R>>();
    auto task = blocking_task(self, "nb.cron-io",
                              [store = self->state.store, out, work] {
                                out->emplace(work(*store));
                                return true;
                              });
    // Bounded by the store's lock and the inbox's receipt timeout: the hour
    // is only there because every request needs a timeout.
    timed_request(self, task, std::chrono::seconds(3600), caf::get_atom::value)
      .then(
        [self, out, done](bool) mutable {
          cron_io_done(self);
          done(&**out, std::string{});
        },
        [self, done](caf::error& err) mutable {
          cron_io_done(self);
          done(static_cast<R*>(nullptr), self->system().render(err));
        });
  });
}

} // namespace nb

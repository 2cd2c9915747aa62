// The cron actor's work: the tick that takes the due jobs and runs them,
// and "run now". Their file work and the waits for the inbox's receipts go
// through cron_io (one blocking task at a time); the rest runs in the actor.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "actors/cron/cron.hpp"

namespace nb {

/// Takes the due jobs (when the store changed or one is due), runs them,
/// and arms the timer for the next job or poll.
void cron_tick(cron_pointer self);

/// Arms the tick timer for the next job or poll after `now` (ms): a timer
/// armed before lapses.
void cron_arm(cron_pointer self, int64_t now);

/// Runs job `id` now, outside its schedule, and records the run; `done`
/// gets whether it went on its way and what happened.
void cron_run_now(cron_pointer self, const std::string& id,
                  std::function<void(bool, std::string)> done);

} // namespace nb

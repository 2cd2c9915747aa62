// An actor system on CAF's deterministic test scheduler: every actor runs on
// the test's own thread, only when the test says so, and time is simulated:
// a timer fires when the test advances the clock, never by waiting. The
// spawn sites that would detach an actor (spawn_blocking, blocking_task)
// schedule it like any other here, so a blocking actor's work runs inline.
#pragma once

#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "messages/type_ids.hpp"

namespace nb::test {

struct sim_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;

  static caf::actor_system_config& init(caf::actor_system_config& cfg) {
    register_messages(cfg);
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    return cfg;
  }

  sim_fixture()
      : sys(init(cfg)), sched(dynamic_cast<caf::scheduler::test_coordinator&>(
                          sys.scheduler())) {}

  /// Runs every actor until none has anything left to do.
  void run() { sched.run(); }

  /// Moves the simulated clock on by `d` (firing every timer due by then,
  /// in order), then runs.
  template <class Rep, class Period>
  void advance(std::chrono::duration<Rep, Period> d) {
    // One step per second: a timer that a fired one arms inside the step
    // fires at its own time, not at the end of the jump.
    auto left = std::chrono::duration_cast<caf::timespan>(d);
    const auto step =
      std::chrono::duration_cast<caf::timespan>(std::chrono::seconds(1));
    while (left > caf::timespan{0}) {
      auto now = std::min(left, step);
      sched.advance_time(now);
      sched.run();
      left -= now;
    }
  }
};

} // namespace nb::test

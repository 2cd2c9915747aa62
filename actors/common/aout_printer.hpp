// CAF 0.17 starts, with every actor system, the printer behind caf::aout: a
// detached blocking actor whose thread (named "caf.actor") waits for lines
// for the system's whole life. Nothing in nanobot prints through aout (our
// logging is spdlog's), so the runtime ends it at start (issue 22: an idle
// gateway keeps only the threads it needs). The one thing it would still
// have printed: CAF's "*** unexpected message" line for a message no
// handler of an actor takes, which then goes nowhere; that sender's request
// still gets its error.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>
#include <caf/send.hpp>

namespace nb {

/// Ends `sys`'s aout printer (its thread ends with it). CAF's shutdown waits
/// for it as before, and finds it already down.
inline void end_aout_printer(caf::actor_system& sys) {
  auto& sched = sys.scheduler();
  // The deterministic test scheduler gives the printer no thread.
  if (!sched.detaches_utility_actors())
    return;
  caf::anon_send_exit(sched.printer(), caf::exit_reason::user_shutdown);
}

} // namespace nb

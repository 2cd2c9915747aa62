// Shutdown signals for the long-running commands (gateway, node).
#pragma once

#include <chrono>
#include <csignal>

namespace nb {

/// Blocks SIGINT/SIGTERM in this thread and every thread started after, so
/// that a sigwait on the returned set is the only place they are seen.
sigset_t block_shutdown_signals();

/// Called after the first signal: from now on the process ends by
/// itself, at once on a second signal in `signals` (exit code 128 +
/// signal), or when `bound` has passed and the orderly shutdown is still
/// running (exit code 1, logged): a stop never hangs, whatever an actor or
/// a system call is waiting for.
void end_process_on_second_signal_or_after(sigset_t signals,
                                           std::chrono::seconds bound);

} // namespace nb

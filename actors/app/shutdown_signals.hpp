// Shutdown signals for the long-running commands (gateway, node).
#pragma once

#include <csignal>

namespace nb {

/// Blocks SIGINT/SIGTERM in this thread and every thread started after, so
/// that a sigwait on the returned set is the only place they are seen.
sigset_t block_shutdown_signals();

} // namespace nb

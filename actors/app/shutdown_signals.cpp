// Shutdown signals for the long-running commands (gateway, node).
#include "actors/app/shutdown_signals.hpp"

#include <pthread.h>

namespace nb {

sigset_t block_shutdown_signals() {
  // A shell starting us in the background may have set SIGINT to "ignore",
  // which would keep sigwait from ever seeing it.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A client closing its socket mid-write must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  return set;
}

} // namespace nb

// Shutdown signals for the long-running commands (gateway, node).
#include "actors/app/shutdown_signals.hpp"

#include <cerrno>
#include <cstdio>
#include <thread>

#include <pthread.h>
#include <unistd.h>

#include "actors/common/log.hpp"

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

void end_process_on_second_signal_or_after(sigset_t signals,
                                           std::chrono::seconds bound) {
  std::thread{[signals, bound] {
    auto deadline = std::chrono::steady_clock::now() + bound;
    int sig = -1;
    while (sig < 0) {
      auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero())
        break;
      auto s = std::chrono::duration_cast<std::chrono::seconds>(left);
      timespec ts{static_cast<time_t>(s.count()),
                  static_cast<long>(std::chrono::duration_cast<
                                      std::chrono::nanoseconds>(left - s)
                                      .count())};
      sig = sigtimedwait(&signals, nullptr, &ts);
      if (sig < 0 && errno != EINTR && errno != EAGAIN)
        break;
    }
    auto lg = log::get("gateway");
    if (sig > 0)
      lg->warn("{} received again: exiting now",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
    else
      lg->error("the shutdown did not finish within {} s: exiting now",
                bound.count());
    lg->flush();
    std::fflush(nullptr);
    // Every finished turn is already fsync'd; nothing here needs unwinding.
    ::_exit(sig > 0 ? 128 + sig : 1);
  }}.detach();
}

} // namespace nb

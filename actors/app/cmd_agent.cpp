#include <csignal>
#include <future>
#include <iostream>
#include <thread>

#include <pthread.h>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/tools/side_files.hpp"
#include "actors/cli/cli_chat.hpp"
#include "actors/common/log.hpp"
#include "actors/supervisor/runtime.hpp"

namespace nb {

int cmd_agent(const options& opts) {
  // The gateway's log lines show in the chat only when asked for (--logs,
  // or --verbose for more); otherwise they stay quiet, as the original's do.
  log::set_level(opts.verbose ? "debug" : opts.logs ? "info" : "off");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  read_tool_side_files(*cfg);
  try {
    // The chat takes Ctrl+C on this thread (to stop a turn): every thread
    // the runtime starts inherits a mask that keeps SIGINT away from it.
    sigset_t sigint, before;
    sigemptyset(&sigint);
    sigaddset(&sigint, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigint, &before);
    runtime rt{*cfg};
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    cli_options co;
    co.session = opts.session;
    co.message = opts.message;
    co.stream = opts.stream;
    co.markdown = opts.markdown;
    co.history_file = cfg->config_dir() + "/history/cli";
    int rc = run_cli_chat(rt.system(), rt.router(), co);
    // Work the turn started in the background (the /new archive, a
    // consolidation) finishes before the process ends, within a bound.
    // The shutdown itself stays on this thread: CAF 0.17 waits in the actor
    // system's destructor for its logger, which the creating thread holds,
    // so destroying the system on another thread never returns. A helper
    // thread only says why the exit takes a moment.
    constexpr auto bound = std::chrono::seconds(15);
    std::promise<void> stopped;
    auto note = std::thread([done = stopped.get_future(), bound] {
      if (done.wait_for(std::chrono::milliseconds(300))
          != std::future_status::ready)
        std::cerr << "nanobot: finishing background work (saving the "
                     "conversation to memory), at most "
                  << bound.count() << " s...\n";
    });
    auto finish_note = [&] {
      stopped.set_value();
      note.join();
    };
    try {
      rt.shutdown(bound);
    } catch (...) {
      finish_note();
      throw;
    }
    finish_note();
    return rc;
  } catch (const std::exception& e) {
    std::cerr << "nanobot: " << e.what() << "\n";
    return 1;
  }
}

} // namespace nb

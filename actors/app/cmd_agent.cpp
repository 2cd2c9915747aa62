#include <future>
#include <iostream>
#include <thread>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/cli/cli_chat.hpp"
#include "actors/common/log.hpp"
#include "actors/supervisor/runtime.hpp"

namespace nb {

int cmd_agent(const options& opts) {
  log::set_level(opts.verbose ? "debug" : opts.logs ? "info" : "warn");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  refuse_exec_without_sandbox(*cfg);
  try {
    runtime rt{*cfg};
    cli_options co;
    co.session = opts.session;
    co.message = opts.message;
    co.stream = opts.stream;
    co.markdown = opts.markdown;
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

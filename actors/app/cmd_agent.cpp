#include <future>
#include <iostream>

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
    int rc = run_cli_chat(rt.system(), rt.router(), co);
    // Work the turn started in the background (the /new archive, a
    // consolidation) finishes before the process ends, within a bound.
    constexpr auto bound = std::chrono::seconds(15);
    auto stopped = std::async(std::launch::async, [&] { rt.shutdown(bound); });
    if (stopped.wait_for(std::chrono::milliseconds(300))
        != std::future_status::ready)
      std::cerr << "nanobot: finishing background work (saving the "
                   "conversation to memory), at most "
                << bound.count() << " s...\n";
    stopped.get();
    return rc;
  } catch (const std::exception& e) {
    std::cerr << "nanobot: " << e.what() << "\n";
    return 1;
  }
}

} // namespace nb

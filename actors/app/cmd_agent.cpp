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
    rt.shutdown(std::chrono::seconds(15));
    return rc;
  } catch (const std::exception& e) {
    std::cerr << "nanobot: " << e.what() << "\n";
    return 1;
  }
}

} // namespace nb

#include <iostream>

#include "actors/agents/agent_listing.hpp"
#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"

namespace nb {

int cmd_agents(const options& opts) {
  if (opts.subcommand != "list") {
    std::cerr << "Usage: nanobot agents list [-c FILE]\n";
    return 2;
  }
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  std::cout << agents_listing(*cfg);
  return 0;
}

} // namespace nb

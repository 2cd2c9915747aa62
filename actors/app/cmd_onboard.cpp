#include <iostream>

#include "actors/app/commands.hpp"
#include "config/load.hpp"
#include "config/onboard.hpp"

namespace nb {

int cmd_onboard(const options& opts) {
  auto path = opts.config_path.empty() ? default_config_path() : opts.config_path;
  auto report = onboard(path, opts.workspace);
  for (auto& p : report.created)
    std::cout << "  created  " << p << "\n";
  for (auto& p : report.kept)
    std::cout << "  kept     " << p << "\n";
  for (auto& e : report.errors)
    std::cerr << "  error    " << e << "\n";
  if (!report.ok())
    return 1;
  std::cout << "\nConfig: " << report.config_path << "\nWorkspace: "
            << report.workspace
            << "\nNext: add a provider to the config (e.g. providers.openrouter.apiKey,\n"
               "or providers.custom.apiBase for a local OpenAI-compatible server),\n"
               "then run `nanobot agent -m \"hello\"`.\n";
  return 0;
}

} // namespace nb

#include "actors/app/load_config.hpp"

#include <iostream>

#include "actors/common/log.hpp"
#include "config/load.hpp"

namespace nb {

std::optional<settings> load_config_or_report(
  const options& opts, std::vector<std::string>* notices) {
  auto path = opts.config_path.empty() ? default_config_path() : opts.config_path;
  auto result = load_settings(path);
  if (auto* err = std::get_if<config_error>(&result)) {
    std::cerr << "nanobot: " << path << ": " << err->message() << "\n";
    return std::nullopt;
  }
  auto& loaded = std::get<loaded_settings>(result);
  for (auto& w : loaded.warnings)
    std::cerr << "warning: " << w << "\n";
  if (opts.verbose)
    for (auto& n : loaded.notices)
      std::cerr << "note: " << n << "\n";
  if (notices)
    *notices = loaded.notices;
  // -w/--workspace wins over agents.defaults.workspace, as in the original.
  if (!opts.workspace.empty())
    loaded.value.agent.workspace = opts.workspace;
  return std::move(loaded.value);
}

} // namespace nb

// Loading the config for a command: errors end the command, warnings print.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "actors/app/options.hpp"
#include "config/settings.hpp"

namespace nb {

/// Loads the config named by the options (or the default). On an error,
/// prints it and returns nothing: the caller exits with code 2.
/// `notices` (when given) receives the informational notes, among them one
/// "<key>: accepted, not used" line per original key this build ignores.
std::optional<settings> load_config_or_report(
  const options& opts, std::vector<std::string>* notices = nullptr);

} // namespace nb

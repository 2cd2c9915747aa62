// nb::settings back to config.json form (camelCase, as nanobot saves it).
#pragma once

#include <nlohmann/json.hpp>

#include "config/settings.hpp"

namespace nb {

/// Every key this gateway uses, camelCase. Timeouts (environment only) and
/// config_path are not part of the file.
nlohmann::json to_config_json(const settings& s);

} // namespace nb

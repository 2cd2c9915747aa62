// One named spdlog logger per concern: router, session, runner, provider,
// tools, store, stats, api, gateway, cli.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace nb::log {

/// Returns the logger for `concern`, creating it on first use. All loggers
/// write to stderr with one pattern and the level set by set_level().
std::shared_ptr<spdlog::logger> get(const std::string& concern);

/// Sets the level of every logger, present and future ("info", "debug", ...).
void set_level(const std::string& level);

} // namespace nb::log

// Timestamps as the original writes them into session files, cron runs and
// the inbox (Python's datetime.now().isoformat()): local time with
// microseconds and no zone, "2025-01-31T12:34:56.123456", so lines we add
// match the lines it wrote and compare as strings with them.
#pragma once

#include <chrono>
#include <string>

namespace nb {

/// `at` in that format.
std::string iso_at(std::chrono::system_clock::time_point at);

/// Now in that format.
std::string iso_now();

/// `ago` before now in that format.
std::string iso_minus(std::chrono::milliseconds ago);

} // namespace nb

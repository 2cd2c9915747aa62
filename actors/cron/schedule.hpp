// Job schedules as nanobot stores them ("at", "every", "cron") and when each
// fires next. Pure: the caller passes the time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nb::cron {

struct schedule {
  std::string kind;   ///< "at", "every" or "cron"
  int64_t at_ms = 0;    ///< kind "at": epoch milliseconds
  int64_t every_ms = 0; ///< kind "every"
  std::string expr;     ///< kind "cron"
  std::string tz;       ///< kind "cron": IANA name, "" = the system's zone
};

/// "" when `s` is usable, else what is wrong with it (names the field).
std::string validate(const schedule& s);

/// The first run strictly after `after_ms`. "every" runs fall on
/// anchor + k * every (the grid never drifts with execution time); "at"
/// has one run; "cron" follows the expression in its zone. nullopt: no
/// future run (a past "at", an expression that never matches).
std::optional<int64_t> next_run(const schedule& s, int64_t after_ms,
                                int64_t anchor_ms);

/// Parses an ISO 8601 date-time ("2026-12-01T09:00", seconds, fraction,
/// "Z" or "+01:00" optional; a space may replace the 'T'). A time without
/// an offset is wall clock in `tz` ("" = the system's zone). Epoch ms, or
/// nullopt with `error` set.
std::optional<int64_t> parse_iso(const std::string& text, const std::string& tz,
                                 std::string* error = nullptr);

/// "2026-12-01T09:00:00+01:00" for `ms` in `tz` ("" = the system's zone).
std::string format_iso(int64_t ms, const std::string& tz);

} // namespace nb::cron

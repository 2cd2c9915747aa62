// Five-field cron expressions ("minute hour day-of-month month day-of-week")
// as cron(8) reads them: lists, ranges, steps, month and weekday names,
// 0 or 7 for Sunday, the @hourly/@daily/... shorthands, and the rule that a
// restricted day-of-month and day-of-week match when EITHER matches. Pure.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>

#include "actors/cron/time_zone.hpp"

namespace nb::cron {

class cron_expr {
public:
  /// Parses `text`; nullopt with `error` naming the field and the problem.
  static std::optional<cron_expr> parse(const std::string& text,
                                        std::string* error = nullptr);

  /// The first firing instant (UTC seconds, on a whole minute) strictly
  /// after `after`, with the wall clock of `zone`. Across DST: a time that
  /// a spring-forward skips fires once when the gap ends; a time that a
  /// fall-back repeats fires once (the first time), except for expressions
  /// with '*' hours, which follow the clock through both passes. nullopt
  /// when nothing matches within the next 8 years (e.g. "0 0 30 2 *").
  std::optional<int64_t> next_after(int64_t after, const time_zone& zone) const;

  /// The first matching wall-clock minute at or after `local` (seconds),
  /// searching at most until `limit`.
  std::optional<int64_t> next_local(int64_t local, int64_t limit) const;

  const std::string& text() const {
    return text_;
  }

private:
  bool day_matches(int64_t days) const;

  std::string text_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> doms_;   ///< 1..31
  std::bitset<13> months_; ///< 1..12
  std::bitset<7> dows_;    ///< 0 = Sunday
  bool dom_star_ = false;
  bool dow_star_ = false;
  bool hour_star_ = false;
};

} // namespace nb::cron

// Calendar arithmetic on plain integers (proleptic Gregorian, UTC-like
// "seconds since 1970" for both instants and wall-clock times). Pure.
#pragma once

#include <cstdint>

namespace nb::cron {

/// A wall-clock date and time, field by field.
struct civil {
  int64_t year = 1970;
  int month = 1;  ///< 1..12
  int day = 1;    ///< 1..31
  int hour = 0;
  int minute = 0;
  int second = 0;
};

/// Days since 1970-01-01 of a date (H. Hinnant's algorithm).
constexpr int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The date of a day count since 1970-01-01.
constexpr civil civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  civil c;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = yoe + era * 400 + (c.month <= 2);
  return c;
}

constexpr int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// Seconds since 1970 of a wall-clock time.
constexpr int64_t to_seconds(const civil& c) {
  return days_from_civil(c.year, c.month, c.day) * 86400 + c.hour * 3600
         + c.minute * 60 + c.second;
}

/// The wall-clock fields of a seconds count.
constexpr civil from_seconds(int64_t s) {
  auto days = floor_div(s, 86400);
  auto rem = s - days * 86400;
  civil c = civil_from_days(days);
  c.hour = static_cast<int>(rem / 3600);
  c.minute = static_cast<int>(rem / 60 % 60);
  c.second = static_cast<int>(rem % 60);
  return c;
}

/// 0 = Sunday ... 6 = Saturday.
constexpr int weekday_from_days(int64_t z) {
  return static_cast<int>(z >= -4 ? (z + 4) % 7 : (z + 5) % 7 + 6);
}

constexpr bool is_leap(int64_t y) {
  return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

constexpr int days_in_month(int64_t y, int m) {
  constexpr int lengths[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : lengths[m - 1];
}

} // namespace nb::cron

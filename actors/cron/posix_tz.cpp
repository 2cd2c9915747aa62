// POSIX TZ rules (the footer of TZif v2+ files), parsed and evaluated.
#include <cctype>

#include "actors/cron/civil_time.hpp"
#include "actors/cron/time_zone.hpp"

namespace nb::cron {

namespace {

struct reader {
  const std::string& s;
  size_t i = 0;
  bool done() const { return i >= s.size(); }
  char peek() const { return done() ? '\0' : s[i]; }
  bool eat(char c) {
    if (peek() != c)
      return false;
    ++i;
    return true;
  }
  bool number(int64_t& out) {
    if (!std::isdigit(static_cast<unsigned char>(peek())))
      return false;
    out = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      // No field of a TZ rule has more than a few digits; a longer number
      // is not a rule, and would overflow.
      if (out > 99999999)
        return false;
      out = out * 10 + (s[i++] - '0');
    }
    return true;
  }
  /// "CET", or "<+0330>" style quoted names.
  bool name() {
    if (eat('<')) {
      while (!done() && peek() != '>')
        ++i;
      return eat('>');
    }
    size_t start = i;
    while (std::isalpha(static_cast<unsigned char>(peek())))
      ++i;
    return i - start >= 3;
  }
  /// [+-]hh[:mm[:ss]] in seconds.
  bool hms(int64_t& out) {
    int64_t sign = 1;
    if (eat('-'))
      sign = -1;
    else
      eat('+');
    int64_t h = 0, m = 0, sec = 0;
    if (!number(h))
      return false;
    if (eat(':')) {
      if (!number(m))
        return false;
      if (eat(':') && !number(sec))
        return false;
    }
    if (h > 167 || m > 59 || sec > 59) // POSIX: hours -167..167
      return false;
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }
  bool rule(posix_tz::rule& r) {
    int64_t a = 0, b = 0, c = 0;
    if (eat('M')) {
      if (!number(a) || !eat('.') || !number(b) || !eat('.') || !number(c))
        return false;
      if (a < 1 || a > 12 || b < 1 || b > 5 || c > 6)
        return false;
      r.kind = 'M';
      r.month = static_cast<int>(a);
      r.week = static_cast<int>(b);
      r.day = static_cast<int>(c);
    } else if (eat('J')) {
      if (!number(a) || a < 1 || a > 365)
        return false;
      r.kind = 'J';
      r.day = static_cast<int>(a);
    } else {
      if (!number(a) || a > 365)
        return false;
      r.kind = 'N';
      r.day = static_cast<int>(a);
    }
    r.time = 7200;
    if (eat('/') && !hms(r.time))
      return false;
    return true;
  }
};

/// Wall-clock seconds (in the offset in force before it) of a rule's
/// transition in `year`.
int64_t rule_local(const posix_tz::rule& r, int64_t year) {
  int64_t day;
  if (r.kind == 'M') {
    auto first = days_from_civil(year, r.month, 1);
    int wd = weekday_from_days(first);
    int64_t d = first + (r.day - wd + 7) % 7 + 7 * (r.week - 1);
    auto last = first + days_in_month(year, r.month) - 1;
    while (d > last)
      d -= 7;
    day = d;
  } else if (r.kind == 'J') {
    // Day 1..365, February 29 never counted.
    day = days_from_civil(year, 1, 1) + r.day - 1;
    if (is_leap(year) && r.day >= 60)
      ++day;
  } else {
    day = days_from_civil(year, 1, 1) + r.day;
  }
  return day * 86400 + r.time;
}

} // namespace

std::optional<posix_tz> posix_tz::parse(const std::string& text) {
  reader rd{text};
  posix_tz tz;
  int64_t off = 0;
  if (!rd.name() || !rd.hms(off))
    return std::nullopt;
  tz.std_offset = -off; // POSIX counts west of UTC
  if (rd.done())
    return tz;
  if (!rd.name())
    return std::nullopt;
  tz.has_dst = true;
  tz.dst_offset = tz.std_offset + 3600;
  if (!rd.done() && rd.peek() != ',') {
    if (!rd.hms(off))
      return std::nullopt;
    tz.dst_offset = -off;
  }
  if (rd.done()) {
    // No rule given: POSIX's default is the US rule.
    tz.start = {'M', 3, 2, 0, 7200};
    tz.end = {'M', 11, 1, 0, 7200};
    return tz;
  }
  if (!rd.eat(',') || !rd.rule(tz.start) || !rd.eat(',')
      || !rd.rule(tz.end) || !rd.done())
    return std::nullopt;
  return tz;
}

int64_t posix_tz::offset_at(int64_t t) const {
  if (!has_dst)
    return std_offset;
  auto year = from_seconds(t + std_offset).year;
  // Start is given in standard time, end in daylight time.
  auto start_utc = rule_local(start, year) - std_offset;
  auto end_utc = rule_local(end, year) - dst_offset;
  bool dst = start_utc < end_utc ? (t >= start_utc && t < end_utc)
                                 : !(t >= end_utc && t < start_utc);
  return dst ? dst_offset : std_offset;
}

} // namespace nb::cron

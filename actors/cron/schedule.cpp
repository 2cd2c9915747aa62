#include "actors/cron/schedule.hpp"

#include <cctype>
#include <cstdio>

#include "actors/cron/civil_time.hpp"
#include "actors/cron/cron_expr.hpp"
#include "actors/cron/time_zone.hpp"

namespace nb::cron {

namespace {

time_zone zone_or_utc(const std::string& tz) {
  auto z = time_zone::load(tz);
  return z ? *z : time_zone{};
}

bool digits(const std::string& s, size_t at, size_t n, int& out) {
  if (at + n > s.size())
    return false;
  out = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!std::isdigit(static_cast<unsigned char>(s[at + k])))
      return false;
    out = out * 10 + (s[at + k] - '0');
  }
  return true;
}

} // namespace

std::string validate(const schedule& s) {
  if (s.kind == "at")
    return s.at_ms > 0 ? "" : "schedule.atMs: a time is required";
  if (s.kind == "every")
    return s.every_ms > 0 ? "" : "schedule.everyMs: must be positive";
  if (s.kind == "cron") {
    std::string err;
    auto e = cron_expr::parse(s.expr, &err);
    if (!e)
      return err;
    auto z = time_zone::load(s.tz, &err);
    if (!z)
      return "schedule.tz: " + err;
    return "";
  }
  return "schedule.kind: '" + s.kind + "' is not one of at, every, cron";
}

std::optional<int64_t> next_run(const schedule& s, int64_t after_ms,
                                int64_t anchor_ms) {
  if (s.kind == "at")
    return s.at_ms > after_ms ? std::optional<int64_t>{s.at_ms} : std::nullopt;
  if (s.kind == "every") {
    if (s.every_ms <= 0)
      return std::nullopt;
    if (after_ms < anchor_ms)
      return anchor_ms;
    auto k = (after_ms - anchor_ms) / s.every_ms + 1;
    return anchor_ms + k * s.every_ms;
  }
  if (s.kind == "cron") {
    auto e = cron_expr::parse(s.expr);
    if (!e)
      return std::nullopt;
    auto t = e->next_after(floor_div(after_ms, 1000), zone_or_utc(s.tz));
    if (!t)
      return std::nullopt;
    return *t * 1000;
  }
  return std::nullopt;
}

std::optional<int64_t> parse_iso(const std::string& text, const std::string& tz,
                                 std::string* error) {
  auto fail = [&](std::string why) -> std::optional<int64_t> {
    if (error)
      *error = "'" + text + "' is not an ISO date-time (" + why
               + "); expected e.g. 2026-12-01T09:00:00";
    return std::nullopt;
  };
  civil c;
  int y = 0;
  if (!digits(text, 0, 4, y) || text.size() < 10 || text[4] != '-'
      || !digits(text, 5, 2, c.month) || text[7] != '-'
      || !digits(text, 8, 2, c.day))
    return fail("the date must be YYYY-MM-DD");
  c.year = y;
  if (c.month < 1 || c.month > 12 || c.day < 1
      || c.day > days_in_month(c.year, c.month))
    return fail("no such date");
  size_t i = 10;
  int64_t frac_ms = 0;
  if (i < text.size() && (text[i] == 'T' || text[i] == 't' || text[i] == ' ')) {
    if (!digits(text, i + 1, 2, c.hour) || i + 3 >= text.size()
        || text[i + 3] != ':' || !digits(text, i + 4, 2, c.minute))
      return fail("the time must be HH:MM");
    i += 6;
    if (i < text.size() && text[i] == ':') {
      if (!digits(text, i + 1, 2, c.second))
        return fail("seconds must be two digits");
      i += 3;
      if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
        ++i;
        int64_t scale = 100;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
          frac_ms += (text[i] - '0') * scale;
          scale /= 10;
          ++i;
        }
      }
    }
    if (c.hour > 23 || c.minute > 59 || c.second > 59)
      return fail("no such time of day");
  }
  auto wall = to_seconds(c);
  if (i == text.size()) {
    std::string err;
    auto z = time_zone::load(tz, &err);
    if (!z)
      return fail(err);
    auto r = z->resolve(wall);
    return r.first * 1000 + frac_ms;
  }
  if (text[i] == 'Z' || text[i] == 'z') {
    if (i + 1 != text.size())
      return fail("text after 'Z'");
    return wall * 1000 + frac_ms;
  }
  if (text[i] == '+' || text[i] == '-') {
    int oh = 0, om = 0;
    if (!digits(text, i + 1, 2, oh))
      return fail("the offset must be +HH:MM");
    size_t j = i + 3;
    if (j < text.size() && text[j] == ':')
      ++j;
    if (j < text.size() && !digits(text, j, 2, om))
      return fail("the offset must be +HH:MM");
    if (j < text.size())
      j += 2;
    if (j != text.size() || oh > 23 || om > 59)
      return fail("the offset must be +HH:MM");
    int64_t off = (oh * 3600 + om * 60) * (text[i] == '-' ? -1 : 1);
    return (wall - off) * 1000 + frac_ms;
  }
  return fail("unexpected text after the time");
}

std::string format_iso(int64_t ms, const std::string& tz) {
  auto z = zone_or_utc(tz);
  auto s = floor_div(ms, 1000);
  auto off = z.offset_at(s);
  auto c = from_seconds(s + off);
  char buf[64];
  auto a = off < 0 ? -off : off;
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d%c%02lld:%02lld",
                static_cast<long long>(c.year), c.month, c.day, c.hour,
                c.minute, c.second, off < 0 ? '-' : '+',
                static_cast<long long>(a / 3600),
                static_cast<long long>(a / 60 % 60));
  return buf;
}

} // namespace nb::cron

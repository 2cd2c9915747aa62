// Cron expressions: fields, lists, ranges, steps, names, the day-of-month /
// day-of-week OR rule, shorthands, and clear errors. Times in UTC here;
// dst_test.cpp covers zones.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "actors/cron/cron_expr.hpp"
#include "actors/cron/schedule.hpp"

namespace {

using namespace nb::cron;

int64_t utc(const std::string& iso) {
  std::string err;
  auto ms = parse_iso(iso, "UTC", &err);
  REQUIRE_MESSAGE(ms, err);
  return *ms / 1000;
}

std::string iso(int64_t s) {
  return format_iso(s * 1000, "UTC");
}

/// The next `n` firings after `from` (UTC), as ISO text.
std::vector<std::string> fires(const std::string& expr, const std::string& from,
                               int n) {
  std::string err;
  auto e = cron_expr::parse(expr, &err);
  REQUIRE_MESSAGE(e, err);
  std::vector<std::string> out;
  auto t = utc(from);
  time_zone z;
  for (int k = 0; k < n; ++k) {
    auto next = e->next_after(t, z);
    REQUIRE(next);
    out.push_back(iso(*next));
    t = *next;
  }
  return out;
}

std::string parse_error(const std::string& expr) {
  std::string err;
  auto e = cron_expr::parse(expr, &err);
  CHECK_FALSE(e);
  return err;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (auto& s : v)
    out += s + " ";
  return out;
}

} // namespace

TEST_CASE("epoch arithmetic matches a known instant") {
  CHECK(utc("2026-01-01T00:00:00Z") == 1767225600);
  CHECK(iso(1767225600) == "2026-01-01T00:00:00+00:00");
}

TEST_CASE("cron expressions fire at the next matching minutes") {
  struct row {
    const char* expr;
    const char* from;
    std::vector<std::string> expect;
  };
  std::vector<row> table{
    {"* * * * *", "2026-01-01T10:00:30Z",
     {"2026-01-01T10:01:00+00:00", "2026-01-01T10:02:00+00:00"}},
    {"0 9 * * *", "2026-01-01T09:00:00Z",
     {"2026-01-02T09:00:00+00:00", "2026-01-03T09:00:00+00:00"}},
    {"5-20/5 * * * *", "2026-01-01T10:00:00Z",
     {"2026-01-01T10:05:00+00:00", "2026-01-01T10:10:00+00:00",
      "2026-01-01T10:15:00+00:00", "2026-01-01T10:20:00+00:00",
      "2026-01-01T11:05:00+00:00"}},
    {"*/20 8,17 * * *", "2026-01-01T08:30:00Z",
     {"2026-01-01T08:40:00+00:00", "2026-01-01T17:00:00+00:00"}},
    {"10/25 * * * *", "2026-01-01T10:00:00Z",
     {"2026-01-01T10:10:00+00:00", "2026-01-01T10:35:00+00:00",
      "2026-01-01T11:10:00+00:00"}},
    // 2026-01-02 is a Friday.
    {"0 8 * * mon-fri", "2026-01-02T09:00:00Z",
     {"2026-01-05T08:00:00+00:00", "2026-01-06T08:00:00+00:00"}},
    {"0 0 1 JAN,jul *", "2026-01-01T00:00:00Z",
     {"2026-07-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00"}},
    // Day of month AND day of week restricted: either one matches.
    {"0 0 13 * 5", "2026-01-01T00:00:00Z",
     {"2026-01-02T00:00:00+00:00", "2026-01-09T00:00:00+00:00",
      "2026-01-13T00:00:00+00:00"}},
    // A '*'-led day of month counts as unrestricted: both must match
    // (odd days that are Fridays).
    {"0 0 */2 * 5", "2026-01-01T00:00:00Z",
     {"2026-01-09T00:00:00+00:00", "2026-01-23T00:00:00+00:00"}},
    // Sunday is 0 and 7.
    {"0 0 * * 7", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00+00:00"}},
    {"0 0 * * 0", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00+00:00"}},
    {"0 0 29 2 *", "2026-03-01T00:00:00Z", {"2028-02-29T00:00:00+00:00"}},
    {"@daily", "2026-01-01T12:00:00Z", {"2026-01-02T00:00:00+00:00"}},
    {"@hourly", "2026-01-01T12:00:00Z", {"2026-01-01T13:00:00+00:00"}},
    {"@weekly", "2026-01-01T12:00:00Z", {"2026-01-04T00:00:00+00:00"}},
    {"@monthly", "2026-01-15T12:00:00Z", {"2026-02-01T00:00:00+00:00"}},
    {"@yearly", "2026-01-15T12:00:00Z", {"2027-01-01T00:00:00+00:00"}},
    {"59 23 31 12 *", "2026-06-01T00:00:00Z", {"2026-12-31T23:59:00+00:00"}},
  };
  for (auto& r : table) {
    std::string expr = r.expr;
    CAPTURE(expr);
    std::string from = r.from;
    CAPTURE(from);
    CHECK(joined(fires(r.expr, r.from, static_cast<int>(r.expect.size()))) == joined(r.expect));
  }
}

TEST_CASE("an expression that never matches has no next run") {
  auto e = cron_expr::parse("0 0 30 2 *");
  REQUIRE(e);
  CHECK_FALSE(e->next_after(utc("2026-01-01T00:00:00Z"), time_zone{}));
}

TEST_CASE("bad cron expressions are refused naming the field") {
  CHECK(parse_error("* * * *").find("expected 5 fields") != std::string::npos);
  CHECK(parse_error("61 * * * *").find("minute field") != std::string::npos);
  CHECK(parse_error("61 * * * *").find("out of range 0-59")
        != std::string::npos);
  CHECK(parse_error("0 24 * * *").find("hour field") != std::string::npos);
  CHECK(parse_error("0 0 0 * *").find("day of month field")
        != std::string::npos);
  CHECK(parse_error("0 0 * foo *").find("month field") != std::string::npos);
  CHECK(parse_error("0 0 * * funday").find("day of week field")
        != std::string::npos);
  CHECK(parse_error("0 0 L * *").find("not supported") != std::string::npos);
  CHECK(parse_error("5-1 * * * *").find("backwards") != std::string::npos);
  CHECK(parse_error("*/0 * * * *").find("step") != std::string::npos);
  CHECK(parse_error("1,,2 * * * *").find("minute field") != std::string::npos);
  CHECK(parse_error("").find("expected 5 fields") != std::string::npos);
}

// Time zones from the system tzdata and cron across DST changes. Expected
// instants were checked against Python's zoneinfo on the same tzdata.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "actors/cron/cron_expr.hpp"
#include "actors/cron/schedule.hpp"
#include "actors/cron/time_zone.hpp"

namespace {

using namespace nb::cron;

int64_t dst_utc(const std::string& iso) {
  std::string err;
  auto ms = parse_iso(iso, "UTC", &err);
  REQUIRE_MESSAGE(ms, err);
  return *ms / 1000;
}

time_zone zone(const std::string& name) {
  std::string err;
  auto z = time_zone::load(name, &err);
  REQUIRE_MESSAGE(z, err);
  return *z;
}

std::vector<std::string> dst_fires(const std::string& expr,
                                   const std::string& tz,
                                   const std::string& from, int n) {
  auto e = cron_expr::parse(expr);
  REQUIRE(e);
  auto z = zone(tz);
  std::vector<std::string> out;
  auto t = dst_utc(from);
  for (int k = 0; k < n; ++k) {
    auto next = e->next_after(t, z);
    REQUIRE(next);
    out.push_back(format_iso(*next * 1000, "UTC"));
    t = *next;
  }
  return out;
}

std::string dst_joined(const std::vector<std::string>& v) {
  std::string out;
  for (auto& s : v)
    out += s + " ";
  return out;
}

} // namespace

TEST_CASE("zone offsets follow the tzdata transitions") {
  auto berlin = zone("Europe/Berlin");
  CHECK(berlin.offset_at(dst_utc("2026-03-29T00:59:59Z")) == 3600);
  CHECK(berlin.offset_at(dst_utc("2026-03-29T01:00:00Z")) == 7200);
  CHECK(berlin.offset_at(dst_utc("2026-10-25T00:59:59Z")) == 7200);
  CHECK(berlin.offset_at(dst_utc("2026-10-25T01:00:00Z")) == 3600);
  // Past the file's explicit transitions the footer rule takes over.
  CHECK(berlin.offset_at(dst_utc("2040-03-25T00:59:59Z")) == 3600);
  CHECK(berlin.offset_at(dst_utc("2040-03-25T01:00:00Z")) == 7200);
  CHECK(berlin.offset_at(dst_utc("2040-12-01T00:00:00Z")) == 3600);
  auto kolkata = zone("Asia/Kolkata");
  CHECK(kolkata.offset_at(dst_utc("2026-06-01T00:00:00Z")) == 19800);
}

TEST_CASE("POSIX rules from TZif footers evaluate like the tzdata") {
  auto r = posix_tz::parse("AEST-10AEDT,M10.1.0,M4.1.0/3");
  REQUIRE(r);
  // Southern hemisphere: summer time spans the new year.
  CHECK(r->offset_at(dst_utc("2040-01-15T00:00:00Z")) == 11 * 3600);
  CHECK(r->offset_at(dst_utc("2040-06-15T00:00:00Z")) == 10 * 3600);
  auto fixed = posix_tz::parse("<+0545>-5:45");
  REQUIRE(fixed);
  CHECK(fixed->offset_at(0) == 5 * 3600 + 45 * 60);
  CHECK_FALSE(posix_tz::parse("CET-1CEST,M13.5.0,M10.5.0"));
  CHECK_FALSE(posix_tz::parse(""));
}

TEST_CASE("POSIX rules with numbers out of range are refused") {
  // Found by fuzz_tzif: a 56-digit transition time overflowed int64_t.
  CHECK_FALSE(posix_tz::parse("CET-1CEST,M3.5.0,M10.5.0/"
                              + std::string(56, '7')));
  CHECK_FALSE(posix_tz::parse("CET-168CEST,M3.5.0,M10.5.0"));
  CHECK_FALSE(posix_tz::parse("CET-1:60"));
  CHECK(posix_tz::parse("CET-1CEST,M3.5.0,M10.5.0/167"));
}

TEST_CASE("wall-clock times resolve to one or two instants or a gap") {
  auto berlin = zone("Europe/Berlin");
  auto plain = berlin.resolve(dst_utc("2026-06-01T12:00:00Z"));
  CHECK(plain.kind == local_resolution::unique);
  CHECK(plain.first == dst_utc("2026-06-01T10:00:00Z"));
  auto gap = berlin.resolve(dst_utc("2026-03-29T02:30:00Z"));
  CHECK(gap.kind == local_resolution::gap);
  CHECK(gap.first == dst_utc("2026-03-29T01:00:00Z"));
  auto twice = berlin.resolve(dst_utc("2026-10-25T02:30:00Z"));
  CHECK(twice.kind == local_resolution::ambiguous);
  CHECK(twice.first == dst_utc("2026-10-25T00:30:00Z"));
  CHECK(twice.second == dst_utc("2026-10-25T01:30:00Z"));
}

TEST_CASE("cron follows the local clock across DST changes") {
  struct row {
    const char* expr;
    const char* tz;
    const char* from;
    std::vector<std::string> expect;
  };
  std::vector<row> table{
    // The same local hour on both sides of spring-forward.
    {"0 9 * * *",
     "Europe/Berlin",
     "2026-03-28T12:00:00Z",
     {"2026-03-29T07:00:00+00:00", "2026-03-30T07:00:00+00:00"}},
    // 02:30 does not exist on 29 March: it dst_fires once, when the gap ends.
    {"30 2 * * *",
     "Europe/Berlin",
     "2026-03-28T12:00:00Z",
     {"2026-03-29T01:00:00+00:00", "2026-03-30T00:30:00+00:00"}},
    // Every quarter hour inside the skipped hour: still only one firing.
    {"*/15 2 * * *",
     "Europe/Berlin",
     "2026-03-28T23:00:00Z",
     {"2026-03-29T01:00:00+00:00", "2026-03-30T00:00:00+00:00"}},
    // 02:30 happens twice on 25 October: a fixed-hour job dst_fires once.
    {"30 2 * * *",
     "Europe/Berlin",
     "2026-10-24T12:00:00Z",
     {"2026-10-25T00:30:00+00:00", "2026-10-26T01:30:00+00:00"}},
    // A '*' hour follows the clock through both passes.
    {"*/30 * * * *",
     "Europe/Berlin",
     "2026-10-25T00:15:00Z",
     {"2026-10-25T00:30:00+00:00", "2026-10-25T01:00:00+00:00",
      "2026-10-25T01:30:00+00:00", "2026-10-25T02:00:00+00:00"}},
    {"0 12 * * *",
     "America/New_York",
     "2026-03-07T18:00:00Z",
     {"2026-03-08T16:00:00+00:00", "2026-03-09T16:00:00+00:00"}},
    {"0 12 * * *",
     "America/New_York",
     "2026-10-31T18:00:00Z",
     {"2026-11-01T17:00:00+00:00"}},
    // Southern hemisphere: Sydney skips 02:00-03:00 on 4 October 2026.
    {"0 2 * * *",
     "Australia/Sydney",
     "2026-10-03T00:00:00Z",
     {"2026-10-03T16:00:00+00:00", "2026-10-04T15:00:00+00:00"}},
    // Beyond 2037 (the footer rule): summer and winter offsets.
    {"0 9 1 * *",
     "Europe/Berlin",
     "2040-06-15T00:00:00Z",
     {"2040-07-01T07:00:00+00:00", "2040-08-01T07:00:00+00:00"}},
    {"0 9 1 12 *",
     "Europe/Berlin",
     "2040-06-15T00:00:00Z",
     {"2040-12-01T08:00:00+00:00"}},
    // A half-hour zone.
    {"0 9 * * *",
     "Asia/Kolkata",
     "2026-06-01T00:00:00Z",
     {"2026-06-01T03:30:00+00:00"}},
  };
  for (auto& r : table) {
    std::string expr = r.expr;
    CAPTURE(expr);
    std::string tz = r.tz;
    CAPTURE(tz);
    std::string from = r.from;
    CAPTURE(from);
    CHECK(dst_joined(
            dst_fires(r.expr, r.tz, r.from, static_cast<int>(r.expect.size())))
          == dst_joined(r.expect));
  }
}

TEST_CASE("unknown and malformed zone names are refused") {
  std::string err;
  CHECK_FALSE(time_zone::load("Mars/Olympus_Mons", &err));
  CHECK(err.find("unknown time zone 'Mars/Olympus_Mons'") != std::string::npos);
  CHECK_FALSE(time_zone::load("../../etc/passwd", &err));
  CHECK(err.find("not a time zone name") != std::string::npos);
  CHECK(time_zone::load("UTC"));
}

TEST_CASE("a TZif file with negative or huge counts is refused") {
  // Found by fuzz_tzif: a negative transition count wrapped the size
  // arithmetic and the reader went past the end of the bytes.
  auto file = [](uint32_t timecnt, uint32_t typecnt) {
    std::string b = "TZif1" + std::string(15, '\0');
    for (uint32_t v : {0u, 0u, 0u, timecnt, typecnt, 4u})
      for (int k = 3; k >= 0; --k)
        b += static_cast<char>((v >> (8 * k)) & 0xff);
    b += std::string(64, '\0');
    return b;
  };
  CHECK_FALSE(time_zone::from_tzif(file(0xffffffffu, 1), "Bad/Negative"));
  CHECK_FALSE(time_zone::from_tzif(file(0, 0x7fffffffu), "Bad/Huge"));
  CHECK(time_zone::from_tzif(file(0, 1), "Ok/Fixed"));
}

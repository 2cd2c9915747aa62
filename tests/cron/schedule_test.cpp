// Schedules: "every" on a fixed grid, one-shot "at", ISO date-times.
#include <doctest/doctest.h>

#include "actors/cron/schedule.hpp"

namespace {

using namespace nb::cron;

int64_t ms(const std::string& iso, const std::string& tz = "UTC") {
  std::string err;
  auto v = parse_iso(iso, tz, &err);
  REQUIRE_MESSAGE(v, err);
  return *v;
}

} // namespace

TEST_CASE("every runs stay on the grid of their anchor") {
  schedule s{"every", 0, 60'000, "", ""};
  int64_t anchor = 1'000'000;
  CHECK(next_run(s, anchor - 5, anchor) == anchor);
  CHECK(next_run(s, anchor, anchor) == anchor + 60'000);
  // A late execution (30 s past its slot) does not shift the grid.
  CHECK(next_run(s, anchor + 90'000, anchor) == anchor + 120'000);
  // Down for ten periods: the next slot, not ten catch-up runs.
  CHECK(next_run(s, anchor + 600'500, anchor) == anchor + 660'000);
}

TEST_CASE("at runs once and never in the past") {
  schedule s{"at", 5000, 0, "", ""};
  CHECK(next_run(s, 4999, 0) == 5000);
  CHECK_FALSE(next_run(s, 5000, 0));
}

TEST_CASE("cron schedules use their zone") {
  schedule s{"cron", 0, 0, "0 9 * * *", "Europe/Berlin"};
  CHECK(next_run(s, ms("2026-12-01T00:00:00Z"), 0)
        == ms("2026-12-01T08:00:00Z"));
}

TEST_CASE("schedules are validated with the field named") {
  CHECK(validate({"every", 0, 0, "", ""}).find("everyMs") != std::string::npos);
  CHECK(validate({"at", 0, 0, "", ""}).find("atMs") != std::string::npos);
  CHECK(validate({"cron", 0, 0, "0 9 * *", ""}).find("5 fields")
        != std::string::npos);
  CHECK(validate({"cron", 0, 0, "0 9 * * *", "Nowhere/Land"}).find("schedule.tz")
        != std::string::npos);
  CHECK(validate({"weekly", 0, 0, "", ""}).find("schedule.kind")
        != std::string::npos);
  CHECK(validate({"cron", 0, 0, "0 9 * * *", "Asia/Tokyo"}).empty());
}

TEST_CASE("ISO date-times parse with and without offsets") {
  CHECK(ms("2026-01-01T00:00:00Z") == 1767225600000);
  CHECK(ms("2026-01-01 00:00") == 1767225600000);
  CHECK(ms("2026-01-01T00:00:00.250Z") == 1767225600250);
  CHECK(ms("2026-01-01T05:30:00+05:30") == 1767225600000);
  CHECK(ms("2025-12-31T19:00:00-05:00") == 1767225600000);
  // Without an offset: wall clock in the given zone.
  CHECK(ms("2026-12-01T09:00:00", "Europe/Berlin")
        == ms("2026-12-01T08:00:00Z"));
  CHECK(ms("2026-07-01T09:00", "Europe/Berlin") == ms("2026-07-01T07:00:00Z"));
  CHECK(ms("2026-07-01") == ms("2026-07-01T00:00:00Z"));
}

TEST_CASE("bad ISO date-times are refused with the reason") {
  std::string err;
  CHECK_FALSE(parse_iso("tomorrow", "UTC", &err));
  CHECK(err.find("YYYY-MM-DD") != std::string::npos);
  CHECK_FALSE(parse_iso("2026-02-30T10:00", "UTC", &err));
  CHECK(err.find("no such date") != std::string::npos);
  CHECK_FALSE(parse_iso("2026-02-10T25:00", "UTC", &err));
  CHECK(err.find("no such time") != std::string::npos);
  CHECK_FALSE(parse_iso("2026-02-10T10:00+5", "UTC", &err));
  CHECK_FALSE(parse_iso("2026-02-10T10:00", "No/Zone", &err));
  CHECK(err.find("unknown time zone") != std::string::npos);
}

TEST_CASE("times print as ISO with the zone's offset") {
  CHECK(format_iso(ms("2026-07-01T07:00:00Z"), "Europe/Berlin")
        == "2026-07-01T09:00:00+02:00");
  CHECK(format_iso(ms("2026-01-01T00:00:00Z"), "America/New_York")
        == "2025-12-31T19:00:00-05:00");
}

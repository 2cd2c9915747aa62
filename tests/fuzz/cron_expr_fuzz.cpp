// The cron expression parser, and the next firing time of what it accepts
// (UTC and a zone with DST rules from a POSIX footer).
#include "actors/cron/cron_expr.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(cron_expr) {
  std::string error;
  auto expr = nb::cron::cron_expr::parse(nb::fuzz::text(data, size), &error);
  if (!expr)
    return 0;
  nb::cron::time_zone utc;
  auto next = expr->next_after(1767225600, utc); // 2026-01-01
  if (next)
    (void) expr->next_after(*next, utc);
  return 0;
}

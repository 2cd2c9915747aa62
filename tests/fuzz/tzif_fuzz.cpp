// The TZif reader (v1-v3 files with their POSIX footer), and conversions
// with what it accepts.
#include "actors/cron/time_zone.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(tzif) {
  auto bytes = nb::fuzz::text(data, size);
  (void) nb::cron::posix_tz::parse(bytes);
  auto zone = nb::cron::time_zone::from_tzif(bytes, "Fuzz/Zone");
  if (!zone)
    return 0;
  for (int64_t t : {int64_t{-2000000000}, int64_t{0}, int64_t{1767225600},
                    int64_t{4102444800}}) {
    auto local = zone->to_local(t);
    (void) zone->resolve(local);
  }
  return 0;
}

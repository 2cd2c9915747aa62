// Slack's payload parser: any JSON as a Socket Mode events_api payload.
#include "actors/channels/slack/slack_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(slack) {
  auto doc = nb::fuzz::json(nb::fuzz::text(data, size));
  if (doc.is_discarded())
    return 0;
  std::string dedup, why;
  (void) nb::slack::parse_event(doc, "U0BOT", "slack", size % 2 == 0, dedup,
                                why);
  return 0;
}

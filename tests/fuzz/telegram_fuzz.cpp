// Telegram's payload parser: any JSON as one update.
#include "actors/channels/telegram/telegram_update.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(telegram) {
  auto doc = nb::fuzz::json(nb::fuzz::text(data, size));
  if (doc.is_discarded())
    return 0;
  nb::telegram::bot_identity me{42, "nanobot_bot"};
  (void) nb::telegram::parse_update(doc, me, "telegram");
  return 0;
}

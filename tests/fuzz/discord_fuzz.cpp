// Discord's payload parser: any JSON as a Gateway event's type and data
// (threads noted first, then read as MESSAGE_CREATE).
#include "actors/channels/discord/discord_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(discord) {
  auto doc = nb::fuzz::json(nb::fuzz::text(data, size));
  if (doc.is_discarded())
    return 0;
  nb::discord::gateway_view view;
  view.bot_id = "1000";
  for (auto type : {"GUILD_CREATE", "THREAD_CREATE", "THREAD_LIST_SYNC"})
    nb::discord::note_threads(view, type, doc);
  std::string why;
  (void) nb::discord::parse_message(doc, view, "discord", why);
  return 0;
}

// The official QQ bot's dispatch payloads: the event type (before the first
// NUL) and any JSON as its `d`.
#include "actors/channels/qq/qq_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(qq) {
  auto [type, body] = nb::fuzz::split(nb::fuzz::text(data, size));
  auto doc = nb::fuzz::json(body);
  if (doc.is_discarded())
    return 0;
  std::string why;
  (void)nb::qq::read_message(type, doc, "qq", why);
  for (const char* known : {"C2C_MESSAGE_CREATE", "GROUP_AT_MESSAGE_CREATE"})
    (void)nb::qq::read_message(known, doc, "qq", why);
  return 0;
}

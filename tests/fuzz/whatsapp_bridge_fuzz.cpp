// WhatsApp bridge's frame reader: any text as one frame from the Node.js
// bridge (read before JSON parsing, so malformed text reaches it too); the
// sender's number from a phone-number field and a JID (split at a NUL).
#include "actors/channels/whatsapp/bridge_frames.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(whatsapp_bridge) {
  auto text = nb::fuzz::text(data, size);
  (void)nb::whatsapp::read_bridge_frame(text, "whatsapp");
  auto [pn, sender] = nb::fuzz::split(text);
  (void)nb::whatsapp::sender_number(pn, sender);
  return 0;
}

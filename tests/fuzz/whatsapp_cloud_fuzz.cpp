// WhatsApp Cloud API webhook: the signature check over any body and header
// (split at the first NUL), then the body as a webhook payload.
#include "actors/channels/whatsapp/cloud_payload.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(whatsapp_cloud) {
  auto [body, header] = nb::fuzz::split(nb::fuzz::text(data, size));
  (void)nb::whatsapp::signature_valid("app-secret", body, header);
  auto doc = nb::fuzz::json(body);
  if (doc.is_discarded())
    return 0;
  (void)nb::whatsapp::read_webhook(doc, "whatsapp");
  if (doc.is_object() && doc.contains("error"))
    (void)nb::whatsapp::graph_error_text(doc["error"]);
  return 0;
}

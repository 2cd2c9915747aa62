// The Email channel's payload parser: any bytes as a raw RFC 5322 message
// (MIME parts, encoded words, quoted-printable, base64).
#include "actors/channels/email/mail_message.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(email) {
  (void) nb::email::parse_mail(nb::fuzz::text(data, size));
  return 0;
}

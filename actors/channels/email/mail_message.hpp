// Reading an RFC 5322 message (headers, MIME parts, transfer encodings)
// and writing a threaded plain-text reply.
#pragma once

#include <string>

namespace nb::email {

struct mail {
  std::string from_address; ///< lower case, without the display name
  std::string subject;      ///< RFC 2047 words decoded
  std::string message_id;   ///< with angle brackets
  std::string references;   ///< as written (message ids, space separated)
  std::string body;         ///< the text/plain part (or tag-stripped HTML)
  bool auto_submitted = false; ///< Auto-Submitted/Precedence: never answer
};

/// Parses a raw message; an empty from_address means it is not a usable
/// message.
mail parse_mail(const std::string& raw);

/// A reply to `to` keeping the thread: In-Reply-To is the original's
/// Message-ID and References its References plus that id. Lines end in
/// CRLF; the body is UTF-8 in quoted-printable.
std::string compose_reply(const std::string& from, const std::string& to,
                          const std::string& subject,
                          const std::string& in_reply_to,
                          const std::string& references,
                          const std::string& body,
                          const std::string& message_id);

/// "Re: " + subject unless it already starts with the prefix.
std::string reply_subject(const std::string& subject,
                          const std::string& prefix);

} // namespace nb::email

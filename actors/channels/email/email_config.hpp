// channels.email: the keys the Email adapter reads.
#pragma once

#include <cstdint>
#include <string>

namespace nb::email {

struct email_config {
  std::string name = "email";
  bool consent_granted = false; ///< must be true: the agent reads mail
  std::string imap_host;
  int32_t imap_port = 993;
  std::string imap_username;
  std::string imap_password;
  std::string imap_mailbox = "INBOX";
  bool imap_use_ssl = true; ///< false: plain connect, then STARTTLS
  std::string smtp_host;
  int32_t smtp_port = 587;
  std::string smtp_username;
  std::string smtp_password;
  bool smtp_use_ssl = false; ///< true: SMTPS (465); false: STARTTLS
  std::string from_address;
  int32_t poll_interval_s = 30;
  bool mark_seen = true;
  bool auto_reply_enabled = true;
  int32_t max_body_chars = 12000;
  std::string subject_prefix = "Re: ";
  std::string ca_file; ///< extra CA bundle for self-hosted servers
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
/// consentGranted other than true is an error that says why.
email_config parse_email_config(const std::string& name,
                                const std::string& raw_json,
                                std::string& error);

} // namespace nb::email

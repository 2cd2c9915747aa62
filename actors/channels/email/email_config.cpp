#include "actors/channels/email/email_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::email {

email_config parse_email_config(const std::string& name,
                                const std::string& raw_json,
                                std::string& error) {
  chan::config_reader r{name, raw_json};
  email_config c;
  c.name = name;
  c.consent_granted = r.boolean("consentGranted", false);
  if (!c.consent_granted)
    r.fail("consentGranted",
           "must be true (the agent reads this mailbox and answers mail)");
  c.imap_host = r.required_str("imapHost");
  c.imap_port = static_cast<int32_t>(r.integer("imapPort", 993, 1, 65535));
  c.imap_username = r.required_str("imapUsername");
  c.imap_password = r.str("imapPassword");
  c.imap_mailbox = r.str("imapMailbox", c.imap_mailbox);
  c.imap_use_ssl = r.boolean("imapUseSsl", c.imap_use_ssl);
  c.smtp_host = r.required_str("smtpHost");
  c.smtp_port = static_cast<int32_t>(r.integer("smtpPort", 587, 1, 65535));
  c.smtp_username = r.str("smtpUsername", c.imap_username);
  c.smtp_password = r.str("smtpPassword", c.imap_password);
  c.smtp_use_ssl = r.boolean("smtpUseSsl", c.smtp_use_ssl);
  c.from_address = r.str("fromAddress", c.smtp_username);
  c.poll_interval_s = static_cast<int32_t>(
    r.integer("pollIntervalSeconds", c.poll_interval_s, 1, 86400));
  c.mark_seen = r.boolean("markSeen", c.mark_seen);
  c.auto_reply_enabled = r.boolean("autoReplyEnabled", c.auto_reply_enabled);
  c.max_body_chars = static_cast<int32_t>(
    r.integer("maxBodyChars", c.max_body_chars, 100, 10000000));
  c.subject_prefix = r.str("subjectPrefix", c.subject_prefix);
  c.ca_file = r.str("caFile");
  if (c.from_address.find('@') == std::string::npos)
    r.fail("fromAddress", "must be an email address");
  error = r.error();
  return c;
}

} // namespace nb::email

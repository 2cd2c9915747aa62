// IMAP and SMTP through libcurl: the few calls the Email adapter makes.
// Blocking; one client per thread.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "actors/channels/email/email_config.hpp"

namespace nb::email {

struct curl_library;

/// The outcome of one libcurl transfer: "" or why it failed.
struct curl_result {
  std::string error;
  std::string body;
};

class imap_client {
public:
  /// `stop` (may be null) aborts a transfer in progress when it turns true.
  imap_client(const email_config& cfg, const std::atomic<bool>* stop);
  ~imap_client();
  imap_client(const imap_client&) = delete;
  imap_client& operator=(const imap_client&) = delete;

  /// UIDs of unseen messages in the mailbox.
  curl_result search_unseen(std::vector<std::string>& uids);
  /// The raw message with `uid` (reading it marks it \Seen).
  curl_result fetch(const std::string& uid);
  /// The raw message with `uid` read with BODY.PEEK[]: it stays unseen
  /// until see() (the Email adapter's acknowledgement, once it is kept).
  curl_result fetch_peek(const std::string& uid);
  /// Sets \Seen.
  curl_result see(const std::string& uid);
  /// Clears \Seen again (markSeen false).
  curl_result unsee(const std::string& uid);

private:
  /// `lines` (may be null) gets every response line (a custom command's
  /// literal data arrives there).
  curl_result run(const std::string& url, const std::string& custom,
                  std::string* lines = nullptr);
  std::string base_;
  const email_config& cfg_;
  const std::atomic<bool>* stop_;
  /// Null when libcurl could not be loaded; load_error_ says why.
  const curl_library* lib_ = nullptr;
  std::string load_error_;
  void* curl_ = nullptr;
};

/// Sends `message` (complete, CRLF lines) from `from` to `to`; STARTTLS is
/// required unless smtpUseSsl picks SMTPS.
curl_result smtp_send(const email_config& cfg, const std::string& from,
                      const std::string& to, const std::string& message);

} // namespace nb::email

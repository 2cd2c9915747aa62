// Real Debian mail servers on loopback for the Email adapter's tests:
// Dovecot (IMAP with STARTTLS, and its submission service with STARTTLS
// and AUTH) relaying to OpenSMTPD, which delivers into Maildirs that
// Dovecot serves. Everything lives in a temp dir; needs root (the servers
// drop privileges to their own users) and the packages dovecot-imapd,
// dovecot-submissiond and opensmtpd.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace nb::test {

class mail_servers {
public:
  /// Mailbox owners: bot@localhost (password "botpass") and
  /// ann@example.org ("annpass").
  mail_servers();
  ~mail_servers();

  /// "" when both servers run, else why not (missing package, not root).
  const std::string& problem() const { return problem_; }

  int imap_port() const { return imap_port_; }
  int submission_port() const { return submission_port_; }
  /// The self-signed certificate the servers use (a caFile).
  std::string ca_file() const;

  /// Drops a raw message into `user`'s INBOX (as a delivery would).
  void deliver(const std::string& user, const std::string& raw);
  /// Raw messages in `user`'s INBOX (new and cur).
  std::vector<std::string> inbox(const std::string& user) const;
  /// Flags of the message file whose name starts with `id` ("" = none).
  std::string dir() const { return dir_; }

private:
  struct procs;
  std::string dir_;
  std::string problem_;
  int imap_port_ = 0;
  int submission_port_ = 0;
  int relay_port_ = 0;
  std::unique_ptr<procs> procs_;
};

} // namespace nb::test

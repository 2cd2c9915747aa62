#include "tests/platforms/mail_servers.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/integration/child_process.hpp"

namespace nb::test {

namespace fs = std::filesystem;

struct mail_servers::procs {
  std::unique_ptr<child_process> dovecot;
  std::unique_ptr<child_process> smtpd;
};

namespace {

void write(const fs::path& p, const std::string& text) {
  std::ofstream{p} << text;
}

bool port_open(int port) {
  auto r = run({"/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port)},
               "/tmp", std::chrono::seconds(2));
  return r.code == 0;
}

} // namespace

mail_servers::mail_servers() : procs_(std::make_unique<procs>()) {
  if (::geteuid() != 0) {
    problem_ = "the mail servers need root to start";
    return;
  }
  for (const char* bin : {"/usr/sbin/dovecot", "/usr/sbin/smtpd",
                          "/usr/lib/dovecot/submission"})
    if (!fs::exists(bin)) {
      problem_ = std::string{bin} + " is not installed";
      return;
    }
  char tmpl[] = "/tmp/nb-mail-XXXXXX";
  dir_ = mkdtemp(tmpl);
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read
                          | fs::perms::group_exec | fs::perms::others_read
                          | fs::perms::others_exec);
  auto d = fs::path(dir_);
  auto gen = run({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                  "-keyout", (d / "key.pem").string(), "-out",
                  (d / "cert.pem").string(), "-days", "2", "-subj",
                  "/CN=localhost", "-addext",
                  "subjectAltName=DNS:localhost,IP:127.0.0.1"},
                 dir_);
  if (gen.code != 0) {
    problem_ = "openssl could not make a certificate: " + gen.err;
    return;
  }
  imap_port_ = free_port();
  submission_port_ = free_port();
  relay_port_ = free_port();
  for (auto user : {"bot", "ann"})
    for (auto sub : {"new", "cur", "tmp"})
      fs::create_directories(d / "mail" / user / "Maildir" / sub);
  fs::create_directories(d / "run");
  fs::create_directories(d / "state");
  run({"/bin/chown", "-R", "65534:65534", (d / "mail").string()}, dir_);
  auto m = (d / "mail").string();
  write(d / "passwd",
        "bot@localhost:{PLAIN}botpass:65534:65534::" + m + "/bot::\n"
        "ann@example.org:{PLAIN}annpass:65534:65534::" + m + "/ann::\n");
  write(d / "dovecot.conf",
        "base_dir = " + dir_ + "/run\nstate_dir = " + dir_ + "/state\n"
        "log_path = " + dir_ + "/dovecot.log\n"
        "protocols = imap submission\nlisten = 127.0.0.1\n"
        "hostname = localhost\n"
        "ssl = required\nssl_cert = <" + dir_ + "/cert.pem\n"
        "ssl_key = <" + dir_ + "/key.pem\n"
        "disable_plaintext_auth = yes\nauth_mechanisms = plain login\n"
        "auth_username_format = %Lu\nfirst_valid_uid = 1\n"
        "passdb {\n  driver = passwd-file\n  args = " + dir_ + "/passwd\n}\n"
        "userdb {\n  driver = passwd-file\n  args = " + dir_ + "/passwd\n}\n"
        "mail_location = maildir:" + m + "/%n/Maildir\n"
        "submission_relay_host = 127.0.0.1\n"
        "submission_relay_port = " + std::to_string(relay_port_) + "\n"
        "submission_relay_trusted = yes\nsubmission_relay_ssl = no\n"
        "service imap-login {\n  inet_listener imap {\n"
        "    address = 127.0.0.1\n    port = " + std::to_string(imap_port_)
        + "\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}\n"
        "service submission-login {\n  inet_listener submission {\n"
        "    address = 127.0.0.1\n    port = "
        + std::to_string(submission_port_) + "\n  }\n}\n"
        "default_internal_user = dovecot\ndefault_login_user = dovenull\n");
  // OpenSMTPD takes the relayed mail on loopback and delivers it into the
  // recipient's Maildir as the mail user. (Its own TLS does not work with
  // OpenSSL 3 in this Debian build, so STARTTLS+AUTH is Dovecot's part.)
  write(d / "vusers", "@ nobody\n");
  write(d / "smtpd.conf",
        "table vusers file:" + dir_ + "/vusers\n"
        "listen on 127.0.0.1 port " + std::to_string(relay_port_)
        + " hostname localhost\n"
        "action \"deliver\" maildir \"" + m
        + "/%{rcpt.user}/Maildir\" virtual <vusers>\n"
        "match from any for any action \"deliver\"\n");
  procs_->smtpd = std::make_unique<child_process>(
    std::vector<std::string>{"/usr/sbin/smtpd", "-d", "-f",
                             dir_ + "/smtpd.conf"},
    dir_);
  procs_->dovecot = std::make_unique<child_process>(
    std::vector<std::string>{"/usr/sbin/dovecot", "-F", "-c",
                             dir_ + "/dovecot.conf"},
    dir_);
  for (int i = 0; i < 100; ++i) {
    if (port_open(imap_port_) && port_open(submission_port_)
        && port_open(relay_port_))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  problem_ = "the mail servers did not start: " + procs_->dovecot->err()
             + procs_->smtpd->err();
}

mail_servers::~mail_servers() {
  for (auto* p : {procs_->dovecot.get(), procs_->smtpd.get()})
    if (p) {
      p->signal(SIGTERM);
      p->wait(std::chrono::seconds(5));
    }
  procs_.reset();
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string mail_servers::ca_file() const {
  return dir_ + "/cert.pem";
}

void mail_servers::deliver(const std::string& user, const std::string& raw) {
  static int n = 0;
  auto base = fs::path(dir_) / "mail" / user / "Maildir";
  auto name = std::to_string(::time(nullptr)) + ".nbtest" + std::to_string(++n)
              + ".localhost";
  write(base / "tmp" / name, raw);
  fs::rename(base / "tmp" / name, base / "new" / name);
  run({"/bin/chown", "-R", "65534:65534", base.string()}, dir_);
}

std::vector<std::string> mail_servers::inbox(const std::string& user) const {
  std::vector<std::string> out;
  auto base = fs::path(dir_) / "mail" / user / "Maildir";
  for (auto sub : {"new", "cur"}) {
    std::error_code ec;
    for (auto& e : fs::directory_iterator(base / sub, ec)) {
      std::ifstream f{e.path()};
      std::stringstream ss;
      ss << f.rdbuf();
      out.push_back(ss.str());
    }
  }
  return out;
}

} // namespace nb::test

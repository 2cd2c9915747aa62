// Email: IMAP polling against a real Dovecot on loopback. A mail counts as
// acknowledged once it carries \Seen (the adapter clears it again when the
// inbox could not keep the message).
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/mail_servers.hpp"

#include <filesystem>

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// Mails in bot@localhost's Maildir flagged \Seen.
int seen_mails(const mail_servers& servers) {
  int n = 0;
  std::error_code ec;
  auto cur = std::filesystem::path(servers.dir()) / "mail/bot/Maildir/cur";
  for (auto& e : std::filesystem::directory_iterator(cur, ec)) {
    auto name = e.path().filename().string();
    auto flags = name.find(":2,");
    if (flags != std::string::npos
        && name.find('S', flags) != std::string::npos)
      ++n;
  }
  return n;
}

} // namespace

TEST_CASE("crash: email keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  mail_servers servers;
  if (!servers.problem().empty()) {
    MESSAGE("real mail servers unavailable: " << servers.problem());
    REQUIRE(servers.problem().empty());
  }
  fake_llm llm;
  crash_home h{llm,
               json{{"channels",
                     {{"email",
                       {{"enabled", true},
                        {"consentGranted", true},
                        {"imapHost", "localhost"},
                        {"imapPort", servers.imap_port()},
                        {"imapUseSsl", false},
                        {"imapUsername", "bot@localhost"},
                        {"imapPassword", "botpass"},
                        {"smtpHost", "localhost"},
                        {"smtpPort", servers.submission_port()},
                        {"smtpUsername", "bot@localhost"},
                        {"smtpPassword", "botpass"},
                        {"fromAddress", "bot@localhost"},
                        {"pollIntervalSeconds", 1},
                        {"caFile", servers.ca_file()},
                        {"allowFrom", {"*"}}}}}}}};
  int sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    ++sent;
    auto id = "<crash" + std::to_string(sent) + "@example.org>";
    servers.deliver("bot", "From: Ann <ann@example.org>\r\nTo: bot@localhost"
                           "\r\nSubject: " + text + "\r\nMessage-ID: " + id
                             + "\r\nDate: Sun, 29 Nov 2026 17:00:00 +0000\r\n"
                               "Content-Type: text/plain; charset=utf-8\r\n"
                               "\r\n" + text + "\r\n");
    // One mail per poll, so they arrive in the order they were sent.
    auto want = sent;
    REQUIRE(eventually([&] { return seen_mails(servers) >= want; },
                       std::chrono::seconds(15)));
  };
  p.all_acknowledged = [&] { return seen_mails(servers) >= sent; };
  p.session_key = "email:ann@example.org";
  p.match_contains = true; // stored as "Subject: <text>\n\n<text>"
  slow_then_five_then_kill(h, llm, p, stop_signal);
}

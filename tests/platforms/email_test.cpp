// The Email adapter: message parsing and replies, then IMAP and SMTP
// against real Dovecot and OpenSMTPD started on loopback by the test.
#include <doctest/doctest.h>

#include "actors/channels/email/email_channel.hpp"
#include "actors/channels/email/mail_message.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/mail_servers.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string raw_mail(const std::string& from, const std::string& subject,
                     const std::string& id, const std::string& body,
                     const std::string& extra = "") {
  return "From: " + from + "\r\nTo: bot@localhost\r\nSubject: " + subject
         + "\r\nMessage-ID: " + id
         + "\r\nDate: Sun, 29 Nov 2026 17:00:00 +0000\r\n" + extra
         + "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
           "\r\n" + body + "\r\n";
}

} // namespace

TEST_CASE("email messages are read through mime and encodings") {
  auto m = email::parse_mail(
    "From: =?UTF-8?B?w4VzYQ==?= <Asa@Example.ORG>\r\n"
    "Subject: =?utf-8?Q?caf=C3=A9_time?=\r\n"
    "Message-ID: <a1@example.org>\r\n"
    "References: <a0@example.org>\r\n"
    "Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n"
    "--b1\r\nContent-Type: text/html\r\n\r\n<p>html version</p>\r\n"
    "--b1\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
    "caf=C3=A9 at =\r\nfour?\r\n--b1--\r\n");
  CHECK(m.from_address == "asa@example.org");
  CHECK(m.subject == "café time");
  CHECK(m.message_id == "<a1@example.org>");
  CHECK(m.references == "<a0@example.org>");
  CHECK(m.body == "café at four?");
  CHECK_FALSE(m.auto_submitted);
  CHECK(email::parse_mail("Subject: no sender\r\n\r\nx").from_address.empty());
  CHECK(email::parse_mail(raw_mail("a@b.c", "x", "<1@b>", "y",
                                   "Auto-Submitted: auto-replied\r\n"))
          .auto_submitted);

  auto r = email::compose_reply("bot@localhost", "asa@example.org",
                                email::reply_subject("café time", "Re: "),
                                "<a1@example.org>", "<a0@example.org>",
                                "Sure = yes", "<r1@localhost>");
  CHECK(r.find("Subject: =?UTF-8?B?") != std::string::npos);
  CHECK(r.find("In-Reply-To: <a1@example.org>\r\n") != std::string::npos);
  CHECK(r.find("References: <a0@example.org> <a1@example.org>\r\n")
        != std::string::npos);
  CHECK(r.find("Sure =3D yes") != std::string::npos);
  CHECK(email::reply_subject("Re: hello", "Re: ") == "Re: hello");
}

TEST_CASE("email needs consent and names missing keys") {
  adapter_probe t;
  temp_dir dir;
  auto s = channel_settings_for("email", json{{"imapHost", "127.0.0.1"}},
                                dir.path);
  t.adapter = email::make_channel(t.sys, s, "email", t.as_manager());
  auto st = t.status();
  CHECK(st.state == "error");
  CHECK(st.detail.find("channels.email.consentGranted: must be true")
        != std::string::npos);
  CHECK(st.detail.find("channels.email.imapUsername: missing")
        != std::string::npos);
}

TEST_CASE("email against dovecot and opensmtpd on loopback") {
  mail_servers servers;
  if (!servers.problem().empty()) {
    MESSAGE("real mail servers unavailable: " << servers.problem());
    REQUIRE(servers.problem().empty());
  }
  adapter_probe t;
  temp_dir dir;
  json raw{{"consentGranted", true},
           {"imapHost", "localhost"}, {"imapPort", servers.imap_port()},
           {"imapUseSsl", false}, // STARTTLS on the IMAP port
           {"imapUsername", "bot@localhost"}, {"imapPassword", "botpass"},
           {"smtpHost", "localhost"}, {"smtpPort", servers.submission_port()},
           {"fromAddress", "bot@localhost"}, {"pollIntervalSeconds", 1},
           {"maxBodyChars", 200}, {"caFile", servers.ca_file()}};
  servers.deliver("bot", raw_mail("Ann <ann@example.org>", "hello",
                                  "<m1@example.org>", "Can you help?",
                                  "References: <m0@example.org>\r\n"));
  t.adapter = email::make_channel(
    t.sys, channel_settings_for("email", raw, dir.path), "email",
    t.as_manager());
  auto in = t.next_inbound(20s);
  REQUIRE(in);
  CHECK(in->sender_id == "ann@example.org");
  CHECK(in->chat_id == "ann@example.org");
  CHECK(in->content == "Subject: hello\n\nCan you help?");
  CHECK(json::parse(in->metadata_json)["_message_id"] == "<m1@example.org>");
  CHECK(t.wait_state("connected"));

  CHECK(t.deliver(reply("email", "ann@example.org", "Yes: *gladly*.")) == "");
  std::vector<std::string> got;
  for (int i = 0; i < 100 && got.empty(); ++i) {
    std::this_thread::sleep_for(100ms);
    got = servers.inbox("ann");
  }
  REQUIRE(got.size() == 1);
  CHECK(got[0].find("Subject: Re: hello") != std::string::npos);
  CHECK(got[0].find("In-Reply-To: <m1@example.org>") != std::string::npos);
  CHECK(got[0].find("References: <m0@example.org> <m1@example.org>")
        != std::string::npos);
  CHECK(got[0].find("Yes: *gladly*.") != std::string::npos);

  // Robots, malformed mail and long bodies; the first mail is not re-read.
  servers.deliver("bot", raw_mail("noreply@example.org", "Out of office",
                                  "<auto@example.org>", "away",
                                  "Auto-Submitted: auto-replied\r\n"));
  servers.deliver("bot", "Subject: nobody sent this\r\n\r\nhm\r\n");
  servers.deliver("bot", raw_mail("bob@example.org", "long", "<m2@example.org>",
                                  std::string(500, 'z')));
  auto next = t.next_inbound(20s);
  REQUIRE(next);
  CHECK(next->sender_id == "bob@example.org");
  CHECK(next->content.find("[... cut at 200 characters]") != std::string::npos);
  CHECK(next->content.size() < 300);
  CHECK_FALSE(t.next_inbound(2500ms));
  CHECK(t.status().state == "connected");
  t.stop();
}

// Links in a DingTalk reply, as the original sends them: a picture link
// goes as sampleImageMsg with the link; any other link is fetched (under
// the SSRF guard, capped at 20 MB, redirects only when allowed) and
// uploaded as a file; HTML goes zipped. The link host is a scripted web
// server on 127.0.0.1, reachable only because the tests whitelist it.
#include <doctest/doctest.h>

#include <fstream>

#include "actors/channels/dingtalk/dingtalk_channel.hpp"
#include "actors/channels/dingtalk/dingtalk_media.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_dingtalk.hpp"
#include "tests/platforms/link_host.hpp"
#include "tests/platforms/log_ring.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct dingtalk_link_probe : adapter_probe {
  log_ring log{"channel.dingtalk"};
  temp_dir dir;
  fake_dingtalk api;
  link_host web;

  explicit dingtalk_link_probe(std::vector<std::string> whitelist,
                               json extra = json::object()) {
    json raw{{"enabled", true},
             {"clientId", fake_dingtalk::client_id},
             {"clientSecret", fake_dingtalk::client_secret},
             {"apiBase", api.api_base()}};
    raw.update(extra);
    auto s = channel_settings_for("dingtalk", raw, dir.path);
    s.tools.ssrf_whitelist = std::move(whitelist);
    adapter = dingtalk::make_channel(sys, s, "dingtalk", as_manager());
  }
  ~dingtalk_link_probe() { stop(); }

  std::string send_link(const std::string& chat, const std::string& link) {
    auto m = reply("dingtalk", chat, "see attached");
    m.metadata_json = json{{"media", {link}}}.dump();
    return deliver(m);
  }
};

/// The notice DingTalk shows when an attachment could not go.
bool dingtalk_noticed_failure(const fake_dingtalk& api,
                              const std::string& name) {
  auto sends = api.sends();
  return !sends.empty() && sends.back()["body"]["msgKey"] == "sampleText"
         && sends.back()["param"]["content"]
              == "[Attachment send failed: " + name + "]";
}

} // namespace

TEST_CASE("dingtalk fetches a file link in a reply and uploads it") {
  dingtalk_link_probe t{{"127.0.0.1/32"}};
  REQUIRE(t.api.wait_connections(1, 10s));
  std::string pdf = "%PDF-1.4" + std::string(1200, 'p');
  t.web.serve("/docs/report.pdf", pdf, "application/pdf");
  CHECK(t.send_link("staff1", t.web.url("/docs/report.pdf?v=2")) == "");
  CHECK(t.web.hits("/docs/report.pdf") == 1);
  auto up = t.api.uploads();
  REQUIRE(up.size() == 1);
  CHECK(up[0]["type"] == "file");
  CHECK(up[0]["file_name"] == "report.pdf");
  CHECK(up[0]["bytes"] == pdf.size());
  auto sends = t.api.sends();
  REQUIRE(sends.size() == 2);
  CHECK(sends[0]["param"]["text"] == "see attached");
  CHECK(sends[1]["body"]["msgKey"] == "sampleFile");
  CHECK(sends[1]["param"]
        == json{{"mediaId", up[0]["media_id"]},
                {"fileName", "report.pdf"},
                {"fileType", "pdf"}});

  // A picture link is DingTalk's to fetch: it goes as the link itself.
  t.web.serve("/img/cat.png", "PNG", "image/png");
  CHECK(t.send_link("staff1", t.web.url("/img/cat.png")) == "");
  CHECK(t.web.hits("/img/cat.png") == 0);
  sends = t.api.sends();
  REQUIRE(sends.size() == 4);
  CHECK(sends[3]["body"]["msgKey"] == "sampleImageMsg");
  CHECK(sends[3]["param"]["photoURL"] == t.web.url("/img/cat.png"));
  CHECK(t.api.uploads().size() == 1);
}

TEST_CASE("dingtalk refuses a link to this machine unless it is whitelisted") {
  dingtalk_link_probe t{{}};
  REQUIRE(t.api.wait_connections(1, 10s));
  t.web.serve("/secret.txt", "internal only", "text/plain");
  CHECK(t.send_link("staff2", t.web.url("/secret.txt")) == "");
  CHECK(t.web.hits("/secret.txt") == 0);
  CHECK(t.api.uploads().empty());
  CHECK(dingtalk_noticed_failure(t.api, "secret.txt"));
  CHECK(t.log.wait_line({"secret.txt", "refused", "loopback"}));
}

TEST_CASE("dingtalk follows a link's redirect only when allowed, to the same "
          "host") {
  SUBCASE("redirects off (the default)") {
    dingtalk_link_probe t{{"127.0.0.1/32"}};
    REQUIRE(t.api.wait_connections(1, 10s));
    t.web.serve("/files/a.csv", "a,b\n1,2\n", "text/csv");
    t.web.redirect("/go/a.csv", t.web.url("/files/a.csv"));
    CHECK(t.send_link("staff3", t.web.url("/go/a.csv")) == "");
    CHECK(t.web.hits("/go/a.csv") == 1);
    CHECK(t.web.hits("/files/a.csv") == 0);
    CHECK(t.api.uploads().empty());
    CHECK(dingtalk_noticed_failure(t.api, "a.csv"));
    CHECK(t.log.wait_line({"a.csv", "allowRemoteMediaRedirects"}));
  }
  SUBCASE("allowed: the same host is followed, another one is not") {
    dingtalk_link_probe t{{"127.0.0.1/32"},
                          {{"allowRemoteMediaRedirects", true}}};
    REQUIRE(t.api.wait_connections(1, 10s));
    t.web.serve("/files/a.csv", "a,b\n1,2\n", "text/csv");
    t.web.redirect("/go/a.csv", "/files/a.csv");
    CHECK(t.send_link("staff3", t.web.url("/go/a.csv")) == "");
    CHECK(t.web.hits("/files/a.csv") == 1);
    auto up = t.api.uploads();
    REQUIRE(up.size() == 1);
    CHECK(up[0]["file_name"] == "a.csv");
    CHECK(up[0]["bytes"] == 8);

    // "localhost" is another host name for the same machine: not followed.
    t.web.redirect("/away/b.csv", "http://localhost:1/files/a.csv");
    CHECK(t.send_link("staff3", t.web.url("/away/b.csv")) == "");
    CHECK(t.web.hits("/away/b.csv") == 1);
    CHECK(t.api.uploads().size() == 1);
    CHECK(dingtalk_noticed_failure(t.api, "b.csv"));
    CHECK(t.log.wait_line({"b.csv", "another host (localhost)"}));
  }
}

TEST_CASE("dingtalk refuses a linked file over the 20 MB cap") {
  dingtalk_link_probe t{{"127.0.0.1/32"}};
  REQUIRE(t.api.wait_connections(1, 10s));
  t.web.serve("/big.zip",
              std::string(static_cast<size_t>(dingtalk::upload_limit_bytes) + 1,
                          'z'),
              "application/zip");
  CHECK(t.send_link("staff4", t.web.url("/big.zip")) == "");
  CHECK(t.web.hits("/big.zip") == 1);
  CHECK(t.api.uploads().empty());
  CHECK(dingtalk_noticed_failure(t.api, "big.zip"));
  CHECK(t.log.wait_line({"big.zip", "larger than 20971520 bytes"}));
}

TEST_CASE("dingtalk zips HTML before it uploads it, linked or local") {
  dingtalk_link_probe t{{"127.0.0.1/32"}};
  REQUIRE(t.api.wait_connections(1, 10s));
  std::string page = "<html><body><h1>Q3</h1></body></html>";
  // Served as text/html under a name without the extension: the type says.
  t.web.serve("/reports/q3", page, "text/html; charset=utf-8");
  CHECK(t.send_link("staff5", t.web.url("/reports/q3")) == "");
  auto local = t.dir.path + "/notes.HTM";
  std::ofstream{local, std::ios::binary} << "<p>local</p>";
  CHECK(t.send_link("staff5", local) == "");

  auto up = t.api.uploads();
  REQUIRE(up.size() == 2);
  CHECK(up[0]["type"] == "file");
  CHECK(up[0]["file_name"] == "q3.zip");
  REQUIRE(up[0].contains("zip_entry"));
  CHECK(up[0]["zip_entry"]["name"] == "q3");
  CHECK(up[0]["zip_entry"]["content"] == page);
  CHECK(up[0]["zip_entry"]["crc_ok"] == true);
  CHECK(up[1]["file_name"] == "notes.zip");
  REQUIRE(up[1].contains("zip_entry"));
  CHECK(up[1]["zip_entry"]["name"] == "notes.HTM");
  CHECK(up[1]["zip_entry"]["content"] == "<p>local</p>");
  CHECK(up[1]["zip_entry"]["crc_ok"] == true);
  auto sends = t.api.sends();
  REQUIRE(sends.size() == 4);
  CHECK(sends[1]["param"]
        == json{{"mediaId", up[0]["media_id"]},
                {"fileName", "q3.zip"},
                {"fileType", "zip"}});
  CHECK(sends[3]["param"]["fileName"] == "notes.zip");
}

// Links in a QQ reply, as the original sends them: QQ's rich media takes
// files, so a link is fetched (under the SSRF guard, held to the 10 MB of
// a base64 upload) and posted as msg_type 7 like a file. The link host is
// a scripted web server on 127.0.0.1, reachable only when whitelisted.
#include <doctest/doctest.h>

#include "actors/channels/qq/qq_channel.hpp"
#include "actors/channels/qq/qq_media.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_qq.hpp"
#include "tests/platforms/link_host.hpp"
#include "tests/platforms/log_ring.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct qq_link_probe : adapter_probe {
  log_ring log{"channel.qq"};
  temp_dir dir;
  fake_qq api;
  link_host web;

  explicit qq_link_probe(std::vector<std::string> whitelist) {
    auto s = channel_settings_for("qq", api.adapter_config(), dir.path);
    s.tools.ssrf_whitelist = std::move(whitelist);
    adapter = qq::make_channel(sys, s, "qq", as_manager());
  }
  ~qq_link_probe() { stop(); }

  std::string send_links(const std::string& chat, const std::string& text,
                         const std::vector<std::string>& links) {
    auto m = reply("qq", chat, text);
    m.metadata_json = json{{"media", links}}.dump();
    return deliver(m);
  }
};

} // namespace

TEST_CASE("qq fetches the links in a reply and posts them as rich media") {
  qq_link_probe t{{"127.0.0.1/32"}};
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U8", "chart?"));
  REQUIRE(t.next_inbound());
  t.web.serve("/charts/q3.png", std::string(2048, 'c'), "image/png");
  t.web.serve("/docs/summary.txt", "the summary", "text/plain");
  CHECK(t.send_links("U8", "both below",
                     {t.web.url("/charts/q3.png?size=big"),
                      t.web.url("/docs/summary.txt")})
        == "");
  CHECK(t.web.hits("/charts/q3.png") == 1);
  CHECK(t.web.hits("/docs/summary.txt") == 1);
  auto up = t.api.uploads();
  REQUIRE(up.size() == 2);
  CHECK(up[0]["kind"] == "users");
  CHECK(up[0]["file_type"] == 1);
  CHECK(up[0]["bytes"] == 2048);
  CHECK(up[1]["file_type"] == 4);
  CHECK(up[1]["file_name"] == "summary.txt");
  CHECK(up[1]["bytes"] == 11);
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 3);
  // The words alone: the links are not repeated as text.
  CHECK(posts[0]["content"] == "both below");
  CHECK(posts[1]["msg_type"] == 7);
  CHECK(posts[1]["media"]["file_info"] == up[0]["file_info"]);
  CHECK(posts[2]["media"]["file_info"] == up[1]["file_info"]);
}

TEST_CASE("qq refuses a link to this machine unless it is whitelisted") {
  qq_link_probe t{{}};
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U9", "file?"));
  REQUIRE(t.next_inbound());
  t.web.serve("/admin/keys.txt", "internal", "text/plain");
  CHECK(t.send_links("U9", "here", {t.web.url("/admin/keys.txt?x=1")}) == "");
  CHECK(t.web.hits("/admin/keys.txt") == 0);
  CHECK(t.api.uploads().empty());
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 2);
  CHECK(posts[1]["content"] == "[Attachment send failed: keys.txt]");
  CHECK(t.log.wait_line({"keys.txt", "refused", "loopback"}));
}

TEST_CASE("qq refuses a linked file over the 10 MB upload limit") {
  qq_link_probe t{{"127.0.0.1/32"}};
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U10", "video?"));
  REQUIRE(t.next_inbound());
  t.web.serve("/big.bin",
              std::string(static_cast<size_t>(qq::qq_upload_limit_bytes) + 1,
                          'v'),
              "application/octet-stream");
  CHECK(t.send_links("U10", "", {t.web.url("/big.bin")}) == "");
  CHECK(t.web.hits("/big.bin") == 1);
  CHECK(t.api.uploads().empty());
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 1);
  CHECK(posts[0]["content"] == "[Attachment send failed: big.bin]");
  CHECK(t.log.wait_line({"big.bin", "larger than 10485760 bytes"}));
}

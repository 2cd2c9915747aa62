// tools.ssrfWhitelist changed in a running gateway (the WebUI's tools page)
// reaching the channels that fetch reply links under it: QQ reads the
// whitelist when its adapter starts, so the change restarts it, and a link
// the agent sends through the message tool is then fetched and uploaded.
// The whole gateway runs: the WebUI's settings API, the supervisor, the
// tools front, the channel manager, the QQ adapter against the scripted QQ,
// and a link host on 127.0.0.1 (reachable only when whitelisted).
#include <doctest/doctest.h>

#include <fstream>

#include <caf/scoped_actor.hpp>
#include <httplib.h>

#include "tests/integration/channel_port.hpp"
#include "tests/support/config_file.hpp"
#include "tests/platforms/link_host.hpp"
#include "tests/platforms/round_trip_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("a tools.ssrfWhitelist saved in the WebUI reaches the QQ adapter") {
  fake_qq qq;
  link_host web;
  gateway gw;
  json ws{{"port", 0}, {"streaming", false}};
  json qq_keys{{"appId", fake_qq::app_id},    {"secret", fake_qq::secret},
               {"apiBase", qq.base_url()},    {"tokenBase", qq.base_url()},
               {"allowFrom", {"U1"}},         {"enabled", true}};
  gw.enable("websocket", ws);
  gw.enable("qq", qq_keys);
  ws["enabled"] = true;
  // The file the WebUI edits: the same settings the gateway runs with.
  auto file = test::scripted_model_config(gw.cfg.agent.workspace,
                                          gw.cfg.providers["custom"].api_base);
  file["channels"] = {{"websocket", ws}, {"qq", qq_keys}};
  std::ofstream{gw.cfg.config_path} << file.dump();
  gw.start();
  REQUIRE(qq.wait_sessions(1, 15s));
  auto port = channel_port(*gw.rt);
  REQUIRE(port > 0);

  // This machine is out of bounds until the whitelist says otherwise.
  httplib::Client http{"127.0.0.1", port};
  http.set_read_timeout(30, 0);
  // A change comes from the WebUI's own page: its Origin.
  httplib::Headers page{{"Origin", "http://127.0.0.1:" + std::to_string(port)}};
  auto saved = http.Put("/api/settings/tools", page,
                        R"({"ssrf_whitelist": ["127.0.0.1/32"]})",
                        "application/json");
  REQUIRE(saved);
  CHECK(saved->status == 200);
  std::ifstream in{gw.cfg.config_path};
  CHECK(json::parse(in)["tools"]["ssrfWhitelist"]
        == json::array({"127.0.0.1/32"}));
  // QQ fetches links with the whitelist it started with: it restarts.
  REQUIRE(qq.wait_sessions(2, 15s));

  web.serve("/charts/q3.png", std::string(2048, 'c'), "image/png");
  auto link = web.url("/charts/q3.png");
  gw.llm.push(tool_calls(
    {call("c1", "message", {{"content", "the chart"}, {"media", {link}}})}));
  gw.llm.push(text("sent it"));
  qq.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U1", "chart please"));
  REQUIRE(eventually([&] { return qq.uploads().size() == 1; }, 20s));
  CHECK(web.hits("/charts/q3.png") == 1);
  CHECK(qq.uploads()[0]["kind"] == "users");
  CHECK(joined_text(qq.posts(), "content").find("Attachment send failed")
        == std::string::npos);
  // The message tool's own check took the new whitelist too (the tools
  // front): the link was not refused before it reached the channel. The
  // upload is done before the tool's result goes back to the model.
  REQUIRE(eventually([&] { return gw.llm.requests().size() >= 2; }, 20s));
  CHECK(gw.llm.requests()[1].raw_body.find("media URL refused")
        == std::string::npos);
}

// The WebSocket channel's agent=<id>: honoured where a binding for the
// channel names that agent for this client, else the bindings decide; the
// WebUI's bootstrap lists the pickable agents.
#include <doctest/doctest.h>

#include <fstream>

#include <caf/scoped_actor.hpp>
#include <httplib.h>

#include "actors/supervisor/runtime.hpp"
#include "config/load.hpp"
#include "tests/integration/channel_port.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/eventually.hpp"
#include "tests/websocket/ws_client.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

settings ws_home(const temp_home& home, const fake_llm& llm) {
  auto ws = [&](const char* n) { return (home.dir / n).string(); };
  auto text = R"({"providers": {"custom": {"apiBase": ")" + llm.base_url()
              + R"("}},
    "channels": {"websocket": {"enabled": true, "port": 0,
                               "streaming": false}},
    "agents": {"defaults": {"workspace": ")" + ws("main") + R"(",
                            "model": "main-model", "provider": "custom"},
      "list": [{"id": "work", "model": "work-model", "workspace": ")"
              + ws("work") + R"("},
               {"id": "family", "model": "family-model", "workspace": ")"
              + ws("family") + R"("},
               {"id": "lonely", "model": "lonely-model", "workspace": ")"
              + ws("lonely") + R"("}],
      "bindings": [{"agent": "work", "channel": "websocket"},
                   {"agent": "family", "channel": "websocket",
                    "senderId": "alice"}]}})";
  std::ofstream{home.dir / "config.json"} << text;
  auto r = load_settings((home.dir / "config.json").string());
  if (auto* e = std::get_if<config_error>(&r))
    FAIL(e->message());
  return std::get<loaded_settings>(r).value;
}

int ws_port(runtime& rt) {
  int port = 0;
  eventually([&] { return (port = channel_port(rt)) != 0; });
  return port;
}

/// Connects as `client` (with agent= when given), sends `text` and
/// returns the answer's text.
std::string ask(int port, const std::string& client, const std::string& agent,
                const std::string& text) {
  ws_client c;
  auto target = "/?client_id=" + client
                + (agent.empty() ? "" : "&agent=" + agent);
  REQUIRE(c.connect(port, target) == 101);
  c.send_text(json{{"type", "message"}, {"content", text}}.dump());
  for (int i = 0; i < 50; ++i) {
    auto frame = c.read_text(30s);
    REQUIRE(frame);
    auto ev = json::parse(*frame);
    if (ev.value("event", "") == "message")
      return ev["text"];
  }
  FAIL("no answer");
  return {};
}

} // namespace

TEST_CASE("agent= in the connect URL, where a binding allows it") {
  temp_home home;
  fake_llm llm;
  auto cfg = ws_home(home, llm);
  runtime rt{cfg, /*background=*/true};
  auto port = ws_port(rt);
  REQUIRE(port != 0);
  // alice may pick family (a websocket binding names it for her).
  CHECK(ask(port, "alice", "family", "/agent").find("Agent: family")
        != std::string::npos);
  // bob may not: the bindings' choice (work) answers him.
  CHECK(ask(port, "bob", "family", "/agent").find("Agent: work")
        != std::string::npos);
  // An agent no websocket binding names is never chosen by the client.
  CHECK(ask(port, "carol", "lonely", "/agent").find("Agent: work")
        != std::string::npos);
  CHECK(ask(port, "dave", "", "/agent").find("Agent: work")
        != std::string::npos);
  ask(port, "alice", "family", "hello");
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].body["model"] == "family-model");
  // A malformed agent id is refused at the upgrade.
  ws_client bad;
  CHECK(bad.connect(port, "/?client_id=eve&agent=Not%20An%20Id") == 400);
  // The WebUI's agent picker lists the agents the bindings offer.
  httplib::Client http{"127.0.0.1", port};
  auto boot = http.Get("/webui/bootstrap");
  REQUIRE(boot);
  CHECK(json::parse(boot->body)["agents"]
        == json::array({"work", "family"}));
}

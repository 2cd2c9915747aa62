// The WebSocket channel through the real actor tree: browser -> manager ->
// router -> session -> scripted LLM -> manager -> browser, on 127.0.0.1.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <httplib.h>

#include "tests/websocket/ws_gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("a browser message gets the agent's streamed answer") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0})"}}};
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=alice") == 101);
  auto chat = ready_chat(c);
  c.send_text(json{{"type", "message"}, {"chat_id", chat},
                   {"content", "hello"}}.dump());
  auto evs = read_until(c, 30s, [](const json& e) { return is(e, "turn_end"); });
  REQUIRE(!evs.empty());
  CHECK(is(evs.back(), "turn_end"));
  std::string streamed;
  bool ended = false;
  for (const auto& e : evs) {
    if (is(e, "delta"))
      streamed += e["text"].get<std::string>();
    ended = ended || is(e, "stream_end");
    CHECK(e["chat_id"] == chat);
  }
  CHECK(streamed.rfind("echo: hello", 0) == 0);
  CHECK(ended);
  CHECK(gw.llm.request_count() == 1);
  auto s = gw.status_of("websocket");
  CHECK(s.state == "connected");
  CHECK(s.received == 1);
}

TEST_CASE("a reply to a browser that dropped is retried and arrives once") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  gw.llm.set_responder([](const json& body) {
    auto r = fake_llm::echo(body);
    r.delay = 500ms; // the browser is gone when the answer is ready
    return r;
  });
  int port = gw.port("websocket");
  ws_client c;
  REQUIRE(c.connect(port, "/?client_id=bob&chat_id=chat-bob") == 101);
  CHECK(ready_chat(c) == "chat-bob");
  c.send_text(R"({"content": "ping"})");
  std::this_thread::sleep_for(100ms);
  c.drop();
  // Wait until the channel reported the failed delivery, then come back.
  auto until = std::chrono::steady_clock::now() + 20s;
  while (gw.status_of("websocket").failed == 0
         && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(50ms);
  REQUIRE(gw.status_of("websocket").failed >= 1);
  REQUIRE(c.connect(port, "/?client_id=bob&chat_id=chat-bob") == 101);
  CHECK(ready_chat(c) == "chat-bob");
  auto evs = read_until(c, 15s, [](const json& e) { return is(e, "turn_end"); });
  // A little longer: a duplicate would show up here.
  auto more = read_until(c, 2500ms, [](const json&) { return false; });
  evs.insert(evs.end(), more.begin(), more.end());
  int messages = 0, ends = 0;
  for (const auto& e : evs) {
    if (is(e, "message")) {
      ++messages;
      CHECK(e["text"].get<std::string>().rfind("echo: ping", 0) == 0);
    }
    ends += is(e, "turn_end") ? 1 : 0;
  }
  CHECK(messages == 1);
  CHECK(ends == 1);
  CHECK(gw.llm.request_count() == 1);
  CHECK(gw.status_of("websocket").sent == 1);
}

TEST_CASE("an unknown sender gets a pairing code and the owner approves it") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"},
              {"guests", R"({"enabled": true, "type": "websocket",
                             "port": 0, "streaming": false})"}}};
  ws_client guest, owner;
  REQUIRE(guest.connect(gw.port("guests"), "/?client_id=guest1") == 101);
  ready_chat(guest);
  guest.send_text("hi");
  auto invite = next_message(guest);
  std::smatch m;
  REQUIRE(std::regex_search(invite, m, std::regex{R"([A-Z0-9]{4}-[A-Z0-9]{4})"}));
  std::string code = m[0];
  CHECK(invite.find("/pairing approve " + code) != std::string::npos);
  // Asking again (even with a command) gives the same code, nothing else.
  guest.send_text("/pairing approve " + code);
  CHECK(next_message(guest).find(code) != std::string::npos);
  CHECK(gw.llm.request_count() == 0);

  REQUIRE(owner.connect(gw.port("websocket"), "/?client_id=owner") == 101);
  ready_chat(owner);
  owner.send_text("/pairing list");
  CHECK(next_message(owner).find("guest1") != std::string::npos);
  owner.send_text("/pairing approve " + code);
  CHECK(next_message(owner) == "Approved guest1 on guests.");
  CHECK(next_message(guest).find("approved") != std::string::npos);
  owner.send_text("/pairing approve " + code);
  CHECK(next_message(owner).find("No pending pairing code") != std::string::npos);

  guest.send_text("hello again");
  CHECK(next_message(guest).rfind("echo: hello again", 0) == 0);
  CHECK(gw.llm.request_count() == 1);
  std::ifstream file{gw.cfg.config_dir() + "/pairing.json"};
  std::stringstream text;
  text << file.rdbuf();
  auto saved = json::parse(text.str());
  CHECK(saved["approved"]["guests"] == json::array({"guest1"}));
}

TEST_CASE("an empty allowFrom refuses everyone and a token is required") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "allowFrom": []})"},
              {"locked", R"({"enabled": true, "type": "websocket", "port": 0,
                             "token": "s3cret", "allowFrom": ["*"]})"}}};
  ws_client c;
  CHECK(c.connect(gw.port("websocket"), "/?client_id=mallory") == 403);
  int locked = gw.port("locked");
  CHECK(c.connect(locked, "/?client_id=a") == 401);
  CHECK(c.connect(locked, "/?client_id=a&token=wrong!") == 401);
  CHECK(c.connect(locked, "/?client_id=a&token=s3cret") == 101);
  httplib::Client http{"127.0.0.1", locked};
  CHECK(http.Get("/api/channels")->status == 401);
  httplib::Headers auth{{"Authorization", "Bearer s3cret"}};
  CHECK(http.Get("/api/channels", auth)->status == 200);
  CHECK(gw.llm.request_count() == 0);
}

TEST_CASE("channel states and the WebUI files are served") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0})"},
              {"telegram", R"({"enabled": false, "token": "${UNSET}"})"},
              {"nosuch", R"({"enabled": true})"},
              {"broken", R"({"enabled": true, "type": "websocket",
                             "port": "eighty"})"}}};
  CHECK(gw.status_of("telegram").state == "disabled");
  auto nosuch = gw.status_of("nosuch");
  CHECK(nosuch.state == "error");
  CHECK(nosuch.detail.find("no channel adapter named \"nosuch\"")
        != std::string::npos);
  auto broken = gw.status_of("broken");
  CHECK(broken.state == "error");
  CHECK(broken.detail == "channels.broken.port: expected an integer 0-65535");
  httplib::Client http{"127.0.0.1", gw.port("websocket")};
  auto page = http.Get("/");
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(page->body.find("<title>nanobot</title>") != std::string::npos);
  CHECK(http.Get("/dashboard.js")->status == 200);
  CHECK(http.Get("/../CMakeLists.txt")->status == 404);
  auto api = http.Get("/api/channels");
  REQUIRE(api);
  auto doc = json::parse(api->body);
  CHECK(doc["channels"].size() == 4);
  auto boot = json::parse(http.Get("/webui/bootstrap")->body);
  CHECK(boot["ws_path"] == "/");
}

// Hostile WebSocket clients: binary frames, invalid UTF-8, oversize
// messages and a client that never reads. Each gets a clear answer (an
// error event, or the close code RFC 6455 names for it), the message is
// never half-taken, and the gateway holds nothing lasting for it.
#include <doctest/doctest.h>

#include <thread>

#include "tests/websocket/ws_gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("a binary frame gets an error event and the connection stays usable") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0, "streaming": false})"}}};
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=bin") == 101);
  auto chat = ready_chat(c);
  c.send_frame(0x2, json{{"content", "as binary"}}.dump());
  c.send_frame(0x2, "\xff\xfe not utf-8 \xc3");
  for (int i = 0; i < 2; ++i) {
    auto evs = read_until(c, 10s, [](const json& e) { return is(e, "error"); });
    REQUIRE(!evs.empty());
    REQUIRE(is(evs.back(), "error"));
    auto detail = evs.back().dump();
    CHECK(detail.find("binary") != std::string::npos);
    CHECK(detail.find("exception") == std::string::npos);
  }
  // Nothing of either frame reached the agent; a text frame still does.
  CHECK(gw.llm.request_count() == 0);
  c.send_text(json{{"content", "hello"}}.dump());
  CHECK(next_message(c).rfind("echo: hello", 0) == 0);
  CHECK(gw.llm.request_count() == 1);
}

TEST_CASE("invalid UTF-8 in a text frame closes with 1007 and takes nothing") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0})"}}};
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=utf") == 101);
  ready_chat(c);
  c.send_frame(0x1, std::string{"{\"content\": \"caf\xc3\x28\"}"});
  while (c.read_text(5s)) {
  }
  CHECK(c.close_code() == 1007);
  std::this_thread::sleep_for(200ms);
  CHECK(gw.llm.request_count() == 0);
}

TEST_CASE("a message over maxMessageBytes closes with 1009 and takes nothing") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0})"}}};
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=big") == 101);
  ready_chat(c);
  // The default is 1 MiB (media go by upload, not inside a message).
  c.send_text(json{{"content", std::string(1100 * 1024, 'a')}}.dump());
  while (c.read_text(10s)) {
  }
  CHECK(c.close_code() == 1009);
  std::this_thread::sleep_for(200ms);
  CHECK(gw.llm.request_count() == 0);
  // Just under the limit is taken whole.
  ws_client d;
  REQUIRE(d.connect(gw.port("websocket"), "/?client_id=big2") == 101);
  ready_chat(d);
  d.send_text(json{{"content", std::string(1000 * 1024, 'b')}}.dump());
  auto evs = read_until(d, 30s, [](const json& e) { return is(e, "turn_end"); });
  REQUIRE(!evs.empty());
  CHECK(gw.llm.request_count() == 1);
}

TEST_CASE("a client that never reads is dropped once its queue passes the cap") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0, "streaming": false,
                                "maxQueuedBytes": 1048576})"}}};
  for (int i = 0; i < 16; ++i)
    gw.llm.push(text(std::string(1 << 20, 'z')));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=slow") == 101);
  // 16 chats, one 1 MiB answer each, and the client reads none of them.
  for (int i = 0; i < 16; ++i)
    c.send_text(json{{"type", "message"}, {"chat_id", "c" + std::to_string(i)},
                     {"content", "talk"}}.dump());
  for (int i = 0; i < 600 && gw.llm.request_count() < 16; ++i)
    std::this_thread::sleep_for(100ms);
  std::this_thread::sleep_for(1s); // the last answers reach the queue
  CHECK(gw.llm.request_count() == 16);
  // The server let go of the connection: reading now ends in a close.
  // Answers only: the small run-state events (goal_status) around each
  // turn are frames too.
  int frames = 0;
  while (auto text = c.read_text(3s))
    frames += is(json::parse(*text), "message") ? 1 : 0;
  MESSAGE("answers the slow client still got before the drop: " << frames);
  CHECK(frames < 16);
}

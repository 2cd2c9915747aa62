// The Mochat adapter against a scripted Mochat (Socket.IO server and REST
// API) on 127.0.0.1.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/platforms/mochat_probe.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using mc = mochat_probe;

json meta_of(const inbound_msg& m) {
  return json::parse(m.metadata_json);
}

} // namespace

TEST_CASE("mochat round trip: a session message in, the reply by REST") {
  mc t;
  t.start_subscribed();
  CHECK(t.api.targets().front() == "/socket.io/?EIO=4&transport=websocket");
  t.api.push_session("session_a", "u1", "hello mochat", "m1");
  // Not acknowledged before the manager took it in.
  std::this_thread::sleep_for(300ms);
  CHECK(t.api.acked() == 0);
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->channel == "mochat");
  CHECK(in->sender_id == "u1");
  CHECK(in->chat_id == "session_a");
  CHECK(in->content == "hello mochat");
  CHECK(meta_of(*in)["_message_id"] == "m1");
  CHECK(meta_of(*in)["_is_group"] == false);
  CHECK(t.api.wait_acked(1, 5s));
  // The cursor moved, on disk, once the message was in.
  std::ifstream f{t.cursor_file()};
  CHECK(json::parse(f)["cursors"]["session_a"] == 1);

  CHECK(t.deliver(reply("mochat", "session_a", "hi back")) == "");
  REQUIRE(t.api.sends().size() == 1);
  CHECK(t.api.sends()[0]["path"] == "/api/claw/sessions/send");
  CHECK(t.api.sends()[0]["sessionId"] == "session_a");
  CHECK(t.api.sends()[0]["content"] == "hi back");
}

TEST_CASE("mochat panels: mention rules, group id on the reply") {
  mc t;
  t.start_subscribed({{"replyDelayMode", "off"},
                      {"groups", {{"g1", {{"requireMention", true}}}}}});
  t.api.push_panel("panel-1", "g1", "u2", "just chatting", "p1");
  t.api.push_panel("panel-1", "g1", "u2", "hey agent", "p2", true);
  t.api.push_panel("panel-1", "g2", "u3", "open group", "p3");
  t.api.push_panel("panel-1", "g1", fake_mochat::agent, "my own", "p4", true);
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "hey agent");
  CHECK(a->chat_id == "panel-1");
  CHECK(meta_of(*a)["_mentioned"] == true);
  CHECK(meta_of(*a)["group_id"] == "g1");
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "open group");
  CHECK_FALSE(t.next_inbound(500ms));
  CHECK(t.api.wait_acked(4, 5s)); // the dropped ones are acknowledged too

  CHECK(t.deliver(reply("mochat", "panel-1", "answer")) == "");
  REQUIRE(t.api.sends().size() == 1);
  CHECK(t.api.sends()[0]["path"] == "/api/claw/groups/panels/send");
  CHECK(t.api.sends()[0]["panelId"] == "panel-1");
  CHECK(t.api.sends()[0]["groupId"] == "g2");
}

TEST_CASE("mochat reply delay sends waiting panel messages with the mention") {
  mc t;
  t.start_subscribed({{"replyDelayMs", 60000}});
  t.api.push_panel("panel-1", "g1", "u2", "first", "d1");
  t.api.push_panel("panel-1", "g1", "u2", "second", "d2");
  CHECK_FALSE(t.next_inbound(500ms));
  CHECK(t.api.acked() == 0); // they wait unacknowledged
  t.api.push_panel("panel-1", "g1", "u3", "@agent-1 what now", "d3");
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content
        == "nick-u2: first\nnick-u2: second\nnick-u3: @agent-1 what now");
  CHECK(meta_of(*in)["buffered_count"] == 3);
  CHECK(t.api.wait_acked(3, 5s));
}

TEST_CASE("mochat reconnects after a drop without losing or repeating") {
  mc t;
  // The socket's own way back is under test: the HTTP polling fallback
  // (mochat_poll_test.cpp) gets nothing.
  t.api.fail_polls(true);
  t.start_subscribed();
  t.api.push_session("session_a", "u1", "one", "r1");
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "one");
  REQUIRE(t.api.wait_acked(1, 5s));
  t.api.drop();
  // Written while the line is down: the next subscribeSessions asks for
  // what came after the stored cursor.
  t.api.push_session("session_a", "u1", "two", "r2");
  t.api.push_session("session_a", "u1", "three", "r3");
  REQUIRE(t.api.wait_connections(2, 15s));
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "two");
  auto c = t.next_inbound();
  REQUIRE(c);
  CHECK(c->content == "three");
  CHECK_FALSE(t.next_inbound(1s));
  auto subs = t.api.subscriptions();
  REQUIRE(subs.size() == 2);
  CHECK(subs[1]["cursors"]["session_a"] == 1);
  CHECK(t.wait_state("connected"));
}

TEST_CASE("mochat notices a missed ping and connects again") {
  mc t{200, 200};
  t.start_subscribed();
  CHECK(eventually([&] { return t.api.pongs() >= 1; }, 10s));
  t.api.stop_pings(true);
  REQUIRE(t.api.wait_connections(2, 10s));
  t.api.stop_pings(false);
  t.api.push_session("session_a", "u1", "still here", "k1");
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "still here");
}

TEST_CASE("mochat skips malformed frames and stays up") {
  mc t;
  t.start_subscribed();
  for (
    const char* bad :
    {"", "9", "4", "42{not json", "42[1,2]", "43[]", "451-[\"x\"]",
     R"(42["claw.session.events","not an object"])",
     R"(42["claw.session.events",{"events":[]}])",
     R"(42["claw.panel.events",{"sessionId":"panel-1","events":[{"type":"message.add","payload":7}]}])",
     R"(42["claw.session.events",{"sessionId":"session_a","events":[{"type":"message.add","payload":{"content":"no author"}}]}])"})
    t.api.push_raw(bad);
  t.api.push_session("session_a", "u1", "fine", "f1");
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "fine");
  CHECK(t.status().state == "connected");
  CHECK(t.api.connections() == 1);
}

TEST_CASE("mochat waits out a 429 when sending") {
  mc t;
  t.start_subscribed();
  t.api.limit_sends(1);
  CHECK(t.deliver(reply("mochat", "session_a", "patience")) == "");
  CHECK(t.api.send_calls() == 2);
  REQUIRE(t.api.sends().size() == 1);
  CHECK(t.api.sends()[0]["content"] == "patience");
}

TEST_CASE("mochat with a wrong token reports an error with the key") {
  mc t;
  t.start({{"clawToken", "wrong-secret"}, {"sessions", {"*"}}});
  CHECK(t.wait_state("error"));
  auto detail = t.status().detail;
  CHECK(detail.find("channels.mochat.clawToken") != std::string::npos);
  CHECK(detail.find("HTTP 401") != std::string::npos); // REST said so first
  CHECK(detail.find("wrong-secret") == std::string::npos);
  CHECK(t.api.connections() == 0);
  CHECK(t.api.refused() == 0);
  CHECK(t.deliver(reply("mochat", "session_a", "x")).find("clawToken")
        != std::string::npos);
}

TEST_CASE("mochat socket refusal of the token is an error too") {
  mc t;
  // The REST API is not asked ("*" absent); the socket's CONNECT_ERROR is.
  t.start({{"clawToken", "wrong-secret"}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("channels.mochat.clawToken")
        != std::string::npos);
  CHECK(t.api.refused() == 1);
}

TEST_CASE("mochat discovers sessions and panels for \"*\"") {
  mc t;
  t.api.push_session("session_z", "u9", "old history", "h1");
  t.start({{"sessions", {"*"}}, {"panels", {"*"}}});
  REQUIRE(t.api.wait_connections(1, 10s));
  auto end = std::chrono::steady_clock::now() + 10s;
  while (t.api.subscriptions().empty()
         && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(10ms);
  REQUIRE_FALSE(t.api.subscriptions().empty());
  CHECK(t.api.subscriptions()[0]["sessionIds"] == json::array({"session_z"}));
  // The history of a session seen for the first time is not answered.
  CHECK_FALSE(t.next_inbound(700ms));
  t.api.push_session("session_z", "u9", "new", "h2");
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "new");
}

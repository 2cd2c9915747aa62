// Each platform end to end: its scripted server -> adapter -> channel
// manager (access control) -> router -> session -> scripted LLM -> back out
// through the manager and the adapter to the platform.
// Telegram, Discord, Slack, Matrix, WhatsApp and NapCat; the others are in
// round_trip_more_test.cpp.
#include <doctest/doctest.h>

#include "tests/platforms/round_trip_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("telegram message reaches the agent and the answer comes back") {
  fake_telegram tg;
  gateway gw;
  gw.enable("telegram", {{"token", "123:ABC"}, {"apiBase", tg.base_url()},
                         {"pollTimeout", 1}, {"allowFrom", {"555"}}});
  gw.start();
  tg.push_text(555, 555, "hello agent");
  REQUIRE(eventually([&] {
    return joined_text(tg.sent(), "text").find("echo: hello agent")
           != std::string::npos;
  }));
  CHECK(tg.sent().front()["chat_id"] == "555");

  // Someone not in allowFrom: the model is never asked, nothing is sent.
  // The poller hands updates on one at a time, in order: once the allowed
  // message behind the stranger's is answered, the stranger's was decided.
  auto calls = gw.llm.request_count();
  tg.push_text(777, 777, "let me in");
  tg.push_text(555, 555, "after the stranger");
  REQUIRE(eventually([&] {
    return joined_text(tg.sent(), "text").find("echo: after the stranger")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  for (auto& s : tg.sent())
    CHECK(s["chat_id"] == "555");
}

TEST_CASE("discord message reaches the agent and the answer comes back") {
  fake_discord dc;
  gateway gw;
  gw.enable("discord", {{"token", "disc-token"}, {"apiBase", dc.api_base()},
                        {"allowFrom", {"7"}}});
  gw.start();
  REQUIRE(dc.wait_sessions(1, 15s));
  dc.push("MESSAGE_CREATE", fake_discord::message("42", "7", "ping discord"));
  REQUIRE(eventually([&] {
    return joined_text(dc.posts(), "content").find("echo: ping discord")
           != std::string::npos;
  }));
  // The gateway connection hands messages on one at a time, in order: the
  // allowed one behind the stranger's is answered only after it.
  auto calls = gw.llm.request_count();
  dc.push("MESSAGE_CREATE", fake_discord::message("43", "8", "stranger"));
  dc.push("MESSAGE_CREATE",
          fake_discord::message("42", "7", "after the stranger"));
  REQUIRE(eventually([&] {
    return joined_text(dc.posts(), "content").find("echo: after the stranger")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  for (auto& p : dc.posts())
    CHECK(p["channel_id"] != "43");
}

TEST_CASE("slack message reaches the agent and the answer comes back") {
  fake_slack sl;
  gateway gw;
  gw.enable("slack", {{"botToken", fake_slack::bot_token},
                      {"appToken", fake_slack::app_token},
                      {"apiBase", sl.api_base()}, {"allowFrom", {"U1"}}});
  gw.start();
  REQUIRE(sl.wait_connections(1, 15s));
  sl.push_event(fake_slack::message("D1", "U1", "ping slack"));
  REQUIRE(eventually([&] {
    return joined_text(sl.posts(), "text").find("echo: ping slack")
           != std::string::npos;
  }));
  // Socket Mode events are handed on one at a time, in order: the allowed
  // one behind the stranger's is answered only after it.
  auto calls = gw.llm.request_count();
  sl.push_event(fake_slack::message("D2", "U2", "stranger"));
  sl.push_event(fake_slack::message("D1", "U1", "after the stranger"));
  REQUIRE(eventually([&] {
    return joined_text(sl.posts(), "text").find("echo: after the stranger")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  for (auto& p : sl.posts())
    CHECK(p["channel"] != "D2");
}

TEST_CASE("matrix message reaches the agent and the answer comes back") {
  fake_matrix hs;
  gateway gw;
  gw.enable("matrix", {{"homeserver", hs.base_url()},
                       {"accessToken", fake_matrix::token},
                       {"syncTimeoutMs", 1000},
                       {"allowFrom", {"@ann:local"}}});
  gw.start();
  // The first sync skips history: a message counts once the client syncs
  // with a since token.
  REQUIRE(eventually([&] { return hs.since_syncs() >= 1; }));
  hs.push_text("!dm:local", "@ann:local", "ping matrix");
  REQUIRE(eventually([&] {
    return joined_text(hs.sent(), "body").find("echo: ping matrix")
           != std::string::npos;
  }));
  // A sync's events are handed on in timeline order: the allowed one behind
  // the stranger's is answered only after it.
  auto calls = gw.llm.request_count();
  hs.push_text("!other:local", "@eve:local", "stranger");
  hs.push_text("!dm:local", "@ann:local", "after the stranger");
  REQUIRE(eventually([&] {
    return joined_text(hs.sent(), "body").find("echo: after the stranger")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  for (auto& s : hs.sent())
    CHECK(s["room_id"] != "!other:local");
}

TEST_CASE(
  "whatsapp bridge message reaches the agent and the answer comes back") {
  fake_whatsapp_bridge wa;
  gateway gw;
  gw.enable("whatsapp", {{"bridgeUrl", wa.url()},
                         {"bridgeToken", fake_whatsapp_bridge::token},
                         {"allowFrom", {"4915112345678"}}});
  gw.start();
  REQUIRE(wa.wait_authenticated(1, 15s));
  wa.push(fake_whatsapp_bridge::message("R1", "4915112345678", "ping whatsapp"));
  REQUIRE(eventually([&] {
    return joined_text(wa.commands(), "text").find("echo: ping whatsapp")
           != std::string::npos;
  }));
  CHECK(wa.commands().front()["to"] == "4915112345678@s.whatsapp.net");
  // The same message again (WhatsApp redelivers after a reconnect) is not
  // handed on twice; a stranger's never reaches the model.
  // The bridge link hands messages on one at a time, in order: the allowed
  // one behind both is answered only after them.
  auto calls = gw.llm.request_count();
  wa.push(fake_whatsapp_bridge::message("R1", "4915112345678", "ping whatsapp"));
  wa.push(fake_whatsapp_bridge::message("R2", "4930999", "stranger"));
  wa.push(
    fake_whatsapp_bridge::message("R3", "4915112345678", "after the stranger"));
  REQUIRE(eventually([&] {
    return joined_text(wa.commands(), "text").find("echo: after the stranger")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  for (auto& c : wa.commands())
    CHECK(c["to"] != "4930999@s.whatsapp.net");
}

TEST_CASE("whatsapp cloud webhook message reaches the agent and the answer "
          "comes back") {
  fake_whatsapp_cloud graph;
  gateway gw;
  auto port = free_port();
  gw.enable("whatsapp", {{"mode", "cloud"},
                         {"apiBase", graph.api_base()},
                         {"accessToken", fake_whatsapp_cloud::access_token},
                         {"phoneNumberId", fake_whatsapp_cloud::phone_number_id},
                         {"appSecret", fake_whatsapp_cloud::app_secret},
                         {"verifyToken", fake_whatsapp_cloud::verify_token},
                         {"webhookPort", port},
                         {"allowFrom", {"16315551181"}}});
  gw.start();
  auto hook = "http://127.0.0.1:" + std::to_string(port) + "/whatsapp/webhook";
  std::string body;
  REQUIRE(eventually([&] {
    return fake_whatsapp_cloud::verify(hook, fake_whatsapp_cloud::verify_token,
                                       "42", body) == 200;
  }));
  // 200 comes once the message is in the gateway's inbox journal.
  CHECK(fake_whatsapp_cloud::post_webhook(
          hook, fake_whatsapp_cloud::text_message("16315551181", "wamid.G1",
                                                  "ping cloud"))
        == 200);
  REQUIRE(eventually([&] {
    for (auto& s : graph.sent())
      if (s["text"].value("body", "").find("echo: ping cloud")
          != std::string::npos)
        return s["to"] == "16315551181";
    return false;
  }));
  auto calls = gw.llm.request_count();
  auto forged = fake_whatsapp_cloud::text_message("16315551181", "wamid.G2",
                                                  "forged");
  CHECK(fake_whatsapp_cloud::post_webhook(hook, forged, "wrong-secret") == 401);
  CHECK(fake_whatsapp_cloud::post_webhook(
          hook, fake_whatsapp_cloud::text_message("4930999", "wamid.G3",
                                                  "stranger"))
        == 200);
  // Each webhook is answered once access control has decided on it; the
  // allowed one posted after is answered (by the model) only after that.
  CHECK(fake_whatsapp_cloud::post_webhook(
          hook, fake_whatsapp_cloud::text_message("16315551181", "wamid.G4",
                                                  "after the stranger"))
        == 200);
  REQUIRE(eventually([&] {
    for (auto& s : graph.sent())
      if (s["text"].value("body", "").find("echo: after the stranger")
          != std::string::npos)
        return true;
    return false;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  for (auto& s : graph.sent())
    CHECK(s["to"] != "4930999");
}

TEST_CASE("napcat message reaches the agent and the answer comes back") {
  fake_napcat nap;
  gateway gw;
  gw.enable("napcat", {{"wsUrl", nap.ws_url()}, {"accessToken", "nap-token"},
                       {"allowFrom", {"42"}}});
  gw.start();
  REQUIRE(nap.wait_connections(1, 15s));
  nap.push(fake_napcat::private_message(42, "ping napcat", 2001));
  REQUIRE(eventually([&] {
    return joined_text(nap.sends(), "text").find("echo: ping napcat")
           != std::string::npos;
  }));
  CHECK(nap.sends().front()["user_id"] == 42);
  auto calls = gw.llm.request_count();
  nap.push(fake_napcat::private_message(43, "stranger", 2002));
  nap.push(fake_napcat::group_message(5, 43, "stranger in a group", 2003,
                                      true));
  // The link hands events on one at a time, in order: the allowed one
  // behind both is answered only after them.
  nap.push(fake_napcat::private_message(42, "after the stranger", 2004));
  REQUIRE(eventually([&] {
    return joined_text(nap.sends(), "text").find("echo: after the stranger")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  for (auto& s : nap.sends()) {
    CHECK(s.value("user_id", 0) != 43);
    CHECK_FALSE(s.contains("group_id"));
  }
}

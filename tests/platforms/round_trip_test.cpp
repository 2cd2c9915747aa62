// Each platform end to end: its scripted server -> adapter -> channel
// manager (access control) -> router -> session -> scripted LLM -> back out
// through the manager and the adapter to the platform.
#include <doctest/doctest.h>

#include <memory>
#include <thread>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/harness.hpp"
#include "tests/platforms/fake_dingtalk.hpp"
#include "tests/platforms/fake_discord.hpp"
#include "tests/platforms/fake_feishu.hpp"
#include "tests/platforms/fake_matrix.hpp"
#include "tests/platforms/fake_mochat.hpp"
#include "tests/platforms/fake_napcat.hpp"
#include "tests/platforms/fake_qq.hpp"
#include "tests/platforms/fake_slack.hpp"
#include "tests/platforms/fake_telegram.hpp"
#include "tests/platforms/fake_whatsapp_bridge.hpp"
#include "tests/platforms/fake_whatsapp_cloud.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct gateway {
  temp_home home;
  fake_llm llm;
  settings cfg;
  std::unique_ptr<runtime> rt;

  gateway() { cfg = settings_for(home, llm); }

  void enable(const std::string& name, json raw) {
    raw["enabled"] = true;
    cfg.channels[name].enabled = true;
    cfg.channels[name].raw_json = raw.dump();
  }

  void start() { rt = std::make_unique<runtime>(cfg, true); }

  ~gateway() {
    if (rt)
      rt->shutdown(std::chrono::seconds(5));
  }
};

/// Polls `pred` for up to `t`.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds t = 20s) {
  auto end = std::chrono::steady_clock::now() + t;
  while (std::chrono::steady_clock::now() < end) {
    if (pred())
      return true;
    std::this_thread::sleep_for(25ms);
  }
  return pred();
}

std::string joined_text(const std::vector<json>& sent, const char* field) {
  std::string out;
  for (auto& s : sent)
    out += s.value(field, "") + "\n";
  return out;
}

} // namespace

TEST_CASE("telegram message reaches the agent and the answer comes back") {
  gateway gw;
  fake_telegram tg;
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
  auto calls = gw.llm.request_count();
  auto before = tg.sent().size();
  tg.push_text(777, 777, "let me in");
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  CHECK(tg.sent().size() == before);
}

TEST_CASE("discord message reaches the agent and the answer comes back") {
  gateway gw;
  fake_discord dc;
  gw.enable("discord", {{"token", "disc-token"}, {"apiBase", dc.api_base()},
                        {"allowFrom", {"7"}}});
  gw.start();
  REQUIRE(dc.wait_sessions(1, 15s));
  dc.push("MESSAGE_CREATE", fake_discord::message("42", "7", "ping discord"));
  REQUIRE(eventually([&] {
    return joined_text(dc.posts(), "content").find("echo: ping discord")
           != std::string::npos;
  }));
  auto calls = gw.llm.request_count();
  dc.push("MESSAGE_CREATE", fake_discord::message("43", "8", "stranger"));
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  for (auto& p : dc.posts())
    CHECK(p["channel_id"] != "43");
}

TEST_CASE("slack message reaches the agent and the answer comes back") {
  gateway gw;
  fake_slack sl;
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
  auto calls = gw.llm.request_count();
  sl.push_event(fake_slack::message("D2", "U2", "stranger"));
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  for (auto& p : sl.posts())
    CHECK(p["channel"] != "D2");
}

TEST_CASE("matrix message reaches the agent and the answer comes back") {
  gateway gw;
  fake_matrix hs;
  gw.enable("matrix", {{"homeserver", hs.base_url()},
                       {"accessToken", fake_matrix::token},
                       {"syncTimeoutMs", 1000},
                       {"allowFrom", {"@ann:local"}}});
  gw.start();
  std::this_thread::sleep_for(1500ms); // first sync: history is skipped
  hs.push_text("!dm:local", "@ann:local", "ping matrix");
  REQUIRE(eventually([&] {
    return joined_text(hs.sent(), "body").find("echo: ping matrix")
           != std::string::npos;
  }));
  auto calls = gw.llm.request_count();
  hs.push_text("!other:local", "@eve:local", "stranger");
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  for (auto& s : hs.sent())
    CHECK(s["room_id"] != "!other:local");
}

TEST_CASE("whatsapp bridge message reaches the agent and the answer comes back") {
  gateway gw;
  fake_whatsapp_bridge wa;
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
  auto calls = gw.llm.request_count();
  wa.push(fake_whatsapp_bridge::message("R1", "4915112345678", "ping whatsapp"));
  wa.push(fake_whatsapp_bridge::message("R2", "4930999", "stranger"));
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  for (auto& c : wa.commands())
    CHECK(c["to"] != "4930999@s.whatsapp.net");
}

TEST_CASE("whatsapp cloud webhook message reaches the agent and the answer comes back") {
  gateway gw;
  fake_whatsapp_cloud graph;
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
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  for (auto& s : graph.sent())
    CHECK(s["to"] != "4930999");
}

TEST_CASE("napcat message reaches the agent and the answer comes back") {
  gateway gw;
  fake_napcat nap;
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
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  for (auto& s : nap.sends()) {
    CHECK(s.value("user_id", 0) != 43);
    CHECK_FALSE(s.contains("group_id"));
  }
}

TEST_CASE("mochat message reaches the agent and the answer comes back") {
  gateway gw;
  fake_mochat mo;
  gw.enable("mochat", {{"baseUrl", mo.base_url()},
                       {"socketUrl", mo.socket_url()},
                       {"clawToken", fake_mochat::token},
                       {"agentUserId", fake_mochat::agent},
                       {"sessions", {"session_a"}},
                       {"panels", {"panel-1"}},
                       {"replyDelayMode", "off"},
                       {"allowFrom", {"u1"}}});
  gw.start();
  REQUIRE(mo.wait_connections(1, 15s));
  REQUIRE(eventually([&] { return !mo.subscriptions().empty(); }));
  mo.push_session("session_a", "u1", "ping mochat", "rt1");
  REQUIRE(eventually([&] {
    return joined_text(mo.sends(), "content").find("echo: ping mochat")
           != std::string::npos;
  }));
  CHECK(mo.sends().front()["sessionId"] == "session_a");
  CHECK(mo.sends().front()["path"] == "/api/claw/sessions/send");
  auto calls = gw.llm.request_count();
  auto sent = mo.sends().size();
  mo.push_session("session_a", "u2", "stranger", "rt2");
  mo.push_panel("panel-1", "g1", "u2", "stranger in a panel", "rt3", true);
  // Both taken in (acknowledged) and refused by access control.
  REQUIRE(mo.wait_acked(3, 15s));
  std::this_thread::sleep_for(1s);
  CHECK(gw.llm.request_count() == calls);
  CHECK(mo.sends().size() == sent);
}

TEST_CASE("qq message reaches the agent and the answer comes back") {
  gateway gw;
  fake_qq qq;
  gw.enable("qq", {{"appId", fake_qq::app_id}, {"secret", fake_qq::secret},
                   {"apiBase", qq.base_url()}, {"tokenBase", qq.base_url()},
                   {"allowFrom", {"U1"}}});
  gw.start();
  REQUIRE(qq.wait_sessions(1, 15s));
  qq.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U1", "ping qq"));
  REQUIRE(eventually([&] {
    return joined_text(qq.posts(), "content").find("echo: ping qq")
           != std::string::npos;
  }));
  // The ack took msg_seq 1 of the message; the answer a later one.
  bool acked = false;
  for (auto& p : qq.posts()) {
    CHECK(p["target"] == "U1");
    if (p["content"] == "⏳ Processing...")
      acked = p["msg_seq"] == 1;
    else
      CHECK(p["msg_seq"].get<int>() > 1);
  }
  CHECK(acked);
  auto calls = gw.llm.request_count();
  auto before = qq.posts().size();
  qq.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U9", "stranger"));
  qq.push("GROUP_AT_MESSAGE_CREATE",
          fake_qq::group_message("G1", "U9", "stranger in a group"));
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  // No ack and no answer to anyone not allowed (a pairing invite at most).
  for (size_t i = before; i < qq.posts().size(); ++i) {
    CHECK(qq.posts()[i]["content"] != "⏳ Processing...");
    CHECK(qq.posts()[i]["target"] != "G1");
  }
}

TEST_CASE("dingtalk message reaches the agent and the answer comes back") {
  gateway gw;
  fake_dingtalk dt;
  gw.enable("dingtalk", {{"clientId", fake_dingtalk::client_id},
                         {"clientSecret", fake_dingtalk::client_secret},
                         {"apiBase", dt.api_base()},
                         {"allowFrom", {"staff1"}}});
  gw.start();
  REQUIRE(dt.wait_connections(1, 15s));
  auto answered = [&](const std::string& text) {
    for (auto& s : dt.sends())
      if (s["param"].value("text", "").find(text) != std::string::npos)
        return true;
    return false;
  };
  // Our ack is lost and the stream drops: DingTalk sends the message again
  // on the next connection, and it is still one turn.
  dt.ignore_acks(true);
  dt.push(fake_dingtalk::text("staff1", "ping dingtalk"));
  REQUIRE(eventually([&] { return answered("echo: ping dingtalk"); }));
  CHECK(dt.sends().front()["body"]["userIds"] == json::array({"staff1"}));
  dt.drop();
  REQUIRE(dt.wait_connections(2, 15s));
  dt.ignore_acks(false);
  REQUIRE(dt.wait_acked(2, 10s));
  dt.push(fake_dingtalk::text("staff1", "second ask", "cidTeam"));
  REQUIRE(eventually([&] { return answered("echo: second ask"); }));
  CHECK(dt.sends().back()["body"]["openConversationId"] == "cidTeam");
  size_t echoes = 0;
  for (auto& s : dt.sends())
    echoes += s["param"].value("text", "").find("echo: ping dingtalk")
              != std::string::npos;
  CHECK(echoes == 1);

  // Someone not in allowFrom: the model is never asked, nothing is sent.
  auto calls = gw.llm.request_count();
  auto before = dt.sends().size();
  dt.push(fake_dingtalk::text("staff7", "stranger"));
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  CHECK(dt.sends().size() == before);
}

TEST_CASE("feishu message reaches the agent and the answer comes back") {
  gateway gw;
  fake_feishu fs;
  gw.enable("feishu", {{"appId", fake_feishu::app_id},
                       {"appSecret", fake_feishu::app_secret},
                       {"apiBase", fs.api_base()},
                       {"allowFrom", {"ou_ann"}}});
  gw.start();
  REQUIRE(fs.wait_connections(1, 15s));
  auto texts = [&] {
    std::string out;
    for (auto& s : fs.sent())
      out += s["body"].value("content", "") + "\n";
    return out;
  };
  auto hello = fake_feishu::text_event("oc_dm", "p2p", "ou_ann", "ping feishu");
  fs.push_event(hello);
  REQUIRE(eventually([&] {
    return texts().find("echo: ping feishu") != std::string::npos;
  }));
  CHECK(fs.sent().front()["body"]["receive_id"] == "ou_ann");
  REQUIRE(fs.wait_reactions(1, 5s));
  CHECK(fs.reactions()[0]["message_id"] == fake_feishu::message_id_of(hello));

  // In a group the bot answers only when mentioned (groupPolicy mention),
  // in the topic's own session.
  fs.push_event(fake_feishu::text_event("oc_grp", "group", "ou_ann",
                                        "not for the bot"));
  fs.push_event(fake_feishu::text_event("oc_grp", "group", "ou_ann",
                                        "ping group", true));
  REQUIRE(eventually([&] {
    return texts().find("echo: ping group") != std::string::npos;
  }));
  CHECK(texts().find("not for the bot") == std::string::npos);

  // Someone not in allowFrom: the model is never asked, nothing is sent,
  // and the message gets no reaction.
  REQUIRE(fs.wait_reactions(2, 5s));
  auto calls = gw.llm.request_count();
  auto before = fs.sent().size();
  auto reactions = fs.reactions().size();
  fs.push_event(fake_feishu::text_event("oc_dm2", "group", "ou_eve",
                                        "let me in", true));
  REQUIRE(fs.wait_acked(4, 10s));
  std::this_thread::sleep_for(2s);
  CHECK(gw.llm.request_count() == calls);
  CHECK(fs.sent().size() == before);
  CHECK(fs.reactions().size() == reactions);
}

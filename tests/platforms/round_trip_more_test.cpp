// Each platform end to end: its scripted server -> adapter -> channel
// manager (access control) -> router -> session -> scripted LLM -> back out
// through the manager and the adapter to the platform.
// Mochat, QQ, DingTalk and Feishu; the others are in round_trip_test.cpp.
#include <doctest/doctest.h>

#include "tests/platforms/round_trip_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// One session and one panel, answered at once, u1 allowed.
json mochat_keys(const fake_mochat& mo) {
  return {{"baseUrl", mo.base_url()},
          {"socketUrl", mo.socket_url()},
          {"clawToken", fake_mochat::token},
          {"agentUserId", fake_mochat::agent},
          {"sessions", {"session_a"}},
          {"panels", {"panel-1"}},
          {"replyDelayMode", "off"},
          {"allowFrom", {"u1"}}};
}

} // namespace

TEST_CASE("mochat message reaches the agent and the answer comes back") {
  fake_mochat mo;
  gateway gw;
  gw.enable("mochat", mochat_keys(mo));
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
  // Both taken in (acknowledged) and refused by access control. The watch
  // hands events on in order: the allowed one behind them is answered only
  // after both were decided.
  REQUIRE(mo.wait_acked(3, 15s));
  mo.push_session("session_a", "u1", "after the strangers", "rt4");
  REQUIRE(eventually([&] {
    return joined_text(mo.sends(), "content").find("echo: after the strangers")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  CHECK(mo.sends().size() == sent + 1);
  CHECK(joined_text(mo.sends(), "content").find("stranger in a panel")
        == std::string::npos);
}

TEST_CASE("mochat over HTTP polling, the socket refused: in and out") {
  fake_mochat mo;
  mo.refuse_socket(true);
  gateway gw;
  auto keys = mochat_keys(mo);
  keys.update({{"refreshIntervalMs", 1000}, {"watchTimeoutMs", 2000}});
  gw.enable("mochat", keys);
  gw.start();
  // The session's first watch found where its log stands; the next one
  // waits for news.
  REQUIRE(eventually([&] { return mo.watches().size() >= 2; }));
  mo.push_session("session_a", "u1", "ping by polling", "hp1");
  REQUIRE(eventually([&] {
    return joined_text(mo.sends(), "content").find("echo: ping by polling")
           != std::string::npos;
  }));
  CHECK(mo.sends().front()["path"] == "/api/claw/sessions/send");
  CHECK(mo.sends().front()["sessionId"] == "session_a");
  mo.push_panel("panel-1", "g1", "u1", "a panel by polling", "hp2", true);
  REQUIRE(eventually([&] {
    return joined_text(mo.sends(), "content").find("echo: a panel by polling")
           != std::string::npos;
  }));
  CHECK(mo.sends().back()["path"] == "/api/claw/groups/panels/send");
  CHECK(mo.sends().back()["groupId"] == "g1");
  CHECK(mo.sends().size() == 2);
  CHECK(mo.connections() == 0);
}

TEST_CASE("qq message reaches the agent and the answer comes back") {
  fake_qq qq;
  gateway gw;
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
  // The gateway connection hands dispatches on one at a time, in order:
  // the allowed one behind both is answered only after them.
  qq.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U1", "after them"));
  REQUIRE(eventually([&] {
    return joined_text(qq.posts(), "content").find("echo: after them")
           != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  // No ack and no answer to anyone not allowed (a pairing invite at most).
  for (size_t i = before; i < qq.posts().size(); ++i) {
    if (qq.posts()[i]["target"] == "U1")
      continue; // the allowed one's ack and answer
    CHECK(qq.posts()[i]["content"] != "⏳ Processing...");
    CHECK(qq.posts()[i]["target"] != "G1");
  }
}

TEST_CASE("dingtalk message reaches the agent and the answer comes back") {
  fake_dingtalk dt;
  gateway gw;
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
  // The stream hands callbacks on one at a time, in order: the allowed one
  // behind the stranger's is answered only after it was decided.
  auto calls = gw.llm.request_count();
  auto before = dt.sends().size();
  dt.push(fake_dingtalk::text("staff7", "stranger"));
  dt.push(fake_dingtalk::text("staff1", "after the stranger"));
  REQUIRE(eventually([&] { return answered("echo: after the stranger"); }));
  CHECK(gw.llm.request_count() == calls + 1);
  CHECK(dt.sends().size() == before + 1);
}

TEST_CASE("feishu message reaches the agent and the answer comes back") {
  fake_feishu fs;
  gateway gw;
  gw.enable("feishu", {{"appId", fake_feishu::app_id},
                       {"appSecret", fake_feishu::app_secret},
                       {"apiBase", fs.api_base()},
                       {"allowFrom", {"ou_ann"}}});
  gw.start();
  REQUIRE(fs.wait_connections(1, 15s));
  // Answers stream into CardKit cards (streaming is on by default).
  auto texts = [&] {
    std::string out;
    for (auto& s : fs.sent())
      out += s["body"].value("content", "") + "\n";
    for (auto& c : fs.cards())
      out += c["text"].get<std::string>() + "\n";
    return out;
  };
  auto hello = fake_feishu::text_event("oc_dm", "p2p", "ou_ann", "ping feishu");
  fs.push_event(hello);
  REQUIRE(eventually([&] {
    auto cards = fs.cards();
    return !cards.empty() && cards[0]["streaming"] == false
           && cards[0]["text"].get<std::string>().rfind("echo: ping feishu", 0)
                == 0;
  }));
  CHECK(fs.sent().front()["body"]["receive_id"] == "ou_ann");
  CHECK(fs.sent().front()["body"]["msg_type"] == "interactive");
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
  auto stranger =
    fake_feishu::text_event("oc_dm2", "group", "ou_eve", "let me in", true);
  fs.push_event(stranger);
  REQUIRE(fs.wait_acked(4, 10s));
  // Events are handed on one at a time, in order: the allowed one behind
  // the stranger's is answered only after it was decided.
  fs.push_event(
    fake_feishu::text_event("oc_dm", "p2p", "ou_ann", "after the stranger"));
  REQUIRE(eventually([&] {
    return texts().find("echo: after the stranger") != std::string::npos;
  }));
  CHECK(gw.llm.request_count() == calls + 1);
  CHECK(fs.sent().size() == before + 1);
  for (size_t i = reactions; i < fs.reactions().size(); ++i)
    CHECK(fs.reactions()[i]["message_id"]
          != fake_feishu::message_id_of(stranger));
}

TEST_CASE("feishu shows a turn's tool hint inside its streaming card") {
  fake_feishu fs;
  gateway gw;
  gw.enable("feishu", {{"appId", fake_feishu::app_id},
                       {"appSecret", fake_feishu::app_secret},
                       {"apiBase", fs.api_base()},
                       {"allowFrom", {"ou_ann"}}});
  // Words first, then a tool call, in one streamed reply; the answer after
  // the tool streams too.
  auto first = stream_tool_calls(
    {call("c1", "read_file", {{"path", "notes.txt"}})});
  first.events.insert(first.events.begin() + 1,
                      sse(chunk({{"content", "Let me look."}})));
  gw.llm.push(first);
  gw.llm.push(stream_text({"Found ", "nothing."}));
  gw.start();
  REQUIRE(fs.wait_connections(1, 15s));
  fs.push_event(
    fake_feishu::text_event("oc_dm", "p2p", "ou_ann", "what do my notes say?"));
  REQUIRE(eventually([&] {
    auto cards = fs.cards();
    return !cards.empty() && cards[0]["streaming"] == false
           && cards[0]["text"].get<std::string>().find("nothing.")
                != std::string::npos;
  }));
  auto cards = fs.cards();
  REQUIRE(cards.size() == 1);
  auto text = cards[0]["text"].get<std::string>();
  auto words = text.find("Let me look.");
  auto hint = text.find("\U0001F527 read_file(");
  auto answer = text.find("Found nothing.");
  CHECK(words != std::string::npos);
  CHECK(hint != std::string::npos);
  CHECK(answer != std::string::npos);
  CHECK(words < hint);
  CHECK(hint < answer);
  CHECK(cards[0]["refused"] == 0);
  // The card is the only message: no hint of its own, no answer again.
  REQUIRE(eventually([&] { return gw.llm.request_count() == 2; }));
  auto sent = fs.sent();
  REQUIRE(sent.size() == 1);
  CHECK(json::parse(sent[0]["body"]["content"].get<std::string>())["data"]
          ["card_id"]
        == cards[0]["card_id"]);
}

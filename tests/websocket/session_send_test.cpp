// send_session_message end to end: two browser chats on a real gateway
// (WebSocket channel, durable inbox, sessions, the scripted LLM). Erin's
// model looks up the other session with list_sessions and sends it a
// message; it arrives in Dave's session as user input through the inbox
// (its transcript line carries the journal entry), Dave's turn is told who
// sent it, and Dave's answer reaches Dave's browser.
#include <doctest/doctest.h>

#include "tests/websocket/ws_gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;


namespace {

std::string text_of(const json& msg) {
  auto& c = msg["content"];
  if (c.is_string())
    return c.get<std::string>();
  std::string out;
  if (c.is_array())
    for (auto& part : c)
      out += part.value("text", "");
  return out;
}

/// Erin asks through the tool; Dave's session answers what it was sent.
fake_response mail_script(const json& body) {
  auto& msgs = body["messages"];
  auto& last = msgs.back();
  auto said = text_of(last);
  if (last.value("role", "") == "tool") {
    if (said.rfind("[\"@", 0) == 0) {
      auto handle = json::parse(said)[0].get<std::string>();
      return tool_calls({call("s1", "send_session_message",
                              {{"to", handle},
                               {"content", "Is the build green?"},
                               {"expect_reply", false}})});
    }
    return text("erin: " + said); // "erin: Sent to @kevu."
  }
  if (said.rfind("hello", 0) == 0)
    return text("hi dave");
  if (said.find("please ask dave") != std::string::npos)
    return tool_calls({call("l1", "list_sessions", json::object())});
  if (said.find("Is the build green?") != std::string::npos) {
    bool told = said.find("another session of this agent") != std::string::npos;
    return text(told ? "dave's session: green" : "no sender note");
  }
  return text("unexpected: " + said);
}

} // namespace

TEST_CASE("send_session_message: a message from one chat's session becomes "
          "a turn in another's, through the inbox") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  gw.llm.set_responder(mail_script);
  ws_client dave;
  REQUIRE(
    dave.connect(gw.port("websocket"), "/?client_id=dave&chat_id=chat-dave")
    == 101);
  CHECK(ready_chat(dave) == "chat-dave");
  dave.send_text(
    json{{"type", "message"}, {"chat_id", "chat-dave"}, {"content", "hello"}}
      .dump());
  CHECK(final_message(dave) == "hi dave");

  ws_client erin;
  REQUIRE(erin.connect(gw.port("websocket"), "/?client_id=erin") == 101);
  auto chat_id = ready_chat(erin);
  erin.send_text(json{
    {"type", "message"}, {"chat_id", chat_id}, {"content", "please ask dave"}}
                   .dump());
  auto answer = final_message(erin);
  CHECK(answer.rfind("erin: Sent to @", 0) == 0);
  // Dave's browser gets the answer of the turn the message started.
  CHECK(final_message(dave) == "dave's session: green");

  auto saved = session_messages(gw.cfg, "websocket:chat-dave");
  const json* asked = nullptr;
  for (auto& m : saved)
    if (m.value("role", "") == "user"
        && m.value("content", "") == "Is the build green?")
      asked = &m;
  REQUIRE(asked);
  // Journaled by the durable inbox before the session stored it.
  CHECK_FALSE(asked->value("_inbox", "").empty());
  // Erin's turn saw the tool's result.
  auto mine = session_messages(gw.cfg, "websocket:" + chat_id);
  bool sent = false;
  for (auto& m : mine)
    sent = sent
           || (m.value("role", "") == "tool"
               && m.value("name", "") == "send_session_message"
               && m.value("content", "").rfind("Sent to @", 0) == 0);
  CHECK(sent);
}

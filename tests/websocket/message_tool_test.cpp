// The message tool answering the chat it was asked from, end to end: a real
// WebSocket client -> channel manager -> session -> scripted LLM (which
// calls the message tool) -> outbox -> manager -> client. The tool's
// message arrives once and the turn's final text is not sent again; only
// the turn's end marker follows.
#include <doctest/doctest.h>

#include <thread>

#include "tests/websocket/ws_gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// Every event until the session's own turn_end (the one with the turn's
/// id), then a little longer so that a duplicate would show up too.
std::vector<json> events_of_turn(ws_client& c) {
  auto evs = read_until(c, 30s, [](const json& e) {
    return is(e, "turn_end") && e.contains("turn_id");
  });
  auto more = read_until(c, 1500ms, [](const json&) { return false; });
  evs.insert(evs.end(), more.begin(), more.end());
  return evs;
}

std::vector<std::string> texts(const std::vector<json>& evs) {
  std::vector<std::string> out;
  for (auto& e : evs)
    if (is(e, "message") && !e.contains("kind"))
      out.push_back(e["text"]);
  return out;
}

} // namespace

TEST_CASE("message tool: the chat gets the tool's message once and no repeat") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  gw.llm.push(tool_calls({call("c1", "message",
                               {{"content", "sent by the tool"}})}));
  gw.llm.push(text("sent by the tool"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=carol") == 101);
  auto chat_id = ready_chat(c);
  c.send_text(json{{"type", "message"}, {"chat_id", chat_id},
                   {"content", "tell me through the tool"}}.dump());
  auto evs = events_of_turn(c);
  REQUIRE_FALSE(evs.empty());
  CHECK(is(evs.back(), "turn_end"));
  int ends = 0;
  for (auto& e : evs)
    ends += is(e, "turn_end") ? 1 : 0;
  CHECK(ends == 1); // the tool's message did not end the turn early
  CHECK(texts(evs) == std::vector<std::string>{"sent by the tool"});
  for (auto& e : evs)
    CHECK(e["chat_id"] == chat_id);
  CHECK(gw.llm.request_count() == 2);
  // The tool result went back to the model; the answer is in the session.
  auto second = gw.llm.requests()[1].body["messages"];
  CHECK(second.back()["role"] == "tool");
  CHECK(second.back()["content"].get<std::string>().find("Message sent to")
        != std::string::npos);
  auto saved = session_messages(gw.cfg, "websocket:" + chat_id);
  REQUIRE_FALSE(saved.empty());
  CHECK(saved.back()["role"] == "assistant");
  CHECK(saved.back()["content"] == "sent by the tool");
}

TEST_CASE("message tool: a message to another chat leaves the reply in place") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  ws_client other;
  REQUIRE(other.connect(gw.port("websocket"),
                        "/?client_id=dave&chat_id=chat-dave") == 101);
  CHECK(ready_chat(other) == "chat-dave");
  gw.llm.push(tool_calls({call("c1", "message",
                               {{"content", "a note for dave"},
                                {"channel", "websocket"},
                                {"chat_id", "chat-dave"}})}));
  gw.llm.push(text("told dave"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=erin") == 101);
  auto chat_id = ready_chat(c);
  c.send_text(json{{"type", "message"}, {"chat_id", chat_id},
                   {"content", "please tell dave"}}.dump());
  auto evs = events_of_turn(c);
  CHECK(texts(evs) == std::vector<std::string>{"told dave"});
  CHECK(next_message(other) == "a note for dave");
}

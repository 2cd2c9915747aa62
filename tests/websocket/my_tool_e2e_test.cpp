// my end to end: a browser chat on a real gateway; the scripted model calls
// my twice (the overview, then this turn's routing) and the results it gets
// back are the turn's own figures, in the original's notation, with the
// provider's key nowhere in them.
#include <doctest/doctest.h>

#include "tests/websocket/ws_gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;


TEST_CASE("my: the model sees its own settings and this turn's chat") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  gw.cfg.providers["custom"].api_key = "sk-live-SECRET-77";
  // The runtime read the settings at the start: restart it with the key.
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg, true);
  gw.llm.push(tool_calls({call("m1", "my", {{"action", "check"}})}));
  gw.llm.push(
    tool_calls({call("m2", "my", {{"action", "check"}, {"key", "request"}})}));
  gw.llm.push(text("I know myself"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat_id = ready_chat(c);
  c.send_text(json{{"type", "message"},
                   {"chat_id", chat_id},
                   {"content", "what model are you?"}}
                .dump());
  CHECK(final_message(c) == "I know myself");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 3);
  auto overview = reqs[1].body["messages"].back();
  CHECK(overview["role"] == "tool");
  auto text1 = overview["content"].get<std::string>();
  CHECK(text1.find("max_iterations: 200\n") != std::string::npos);
  CHECK(text1.find("model: 'test-model'\n") != std::string::npos);
  CHECK(text1.find("_current_iteration: 0\n") != std::string::npos);
  CHECK(text1.find("_last_usage: {'completion_tokens': 5, 'prompt_tokens': "
                   "10, 'total_tokens': 15}")
        != std::string::npos);
  auto routing = reqs[2].body["messages"].back()["content"].get<std::string>();
  CHECK(routing
        == "request: {'channel': 'websocket', 'chat_id': '" + chat_id
             + "', 'sender_id': 'ann'}");
  for (auto& r : reqs)
    for (auto& m : r.body["messages"])
      CHECK(m.dump().find("SECRET") == std::string::npos);
}

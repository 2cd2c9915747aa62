// exec background sessions end to end: a browser chat on a real gateway;
// the scripted model starts `cat` with yield_time_ms and lists its
// sessions; /stop in that chat ends the session (no process is left) and
// the next turn's listing is empty.
#include <doctest/doctest.h>

#include <thread>

#include "tests/support/proc_scan.hpp"
#include "tests/websocket/ws_gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string last_tool_text(const json& body) {
  auto m = body["messages"].back();
  REQUIRE(m["role"] == "tool");
  return m["content"].get<std::string>();
}

} // namespace

TEST_CASE("exec sessions: started with yield_time_ms, listed, ended by /stop") {
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  gw.llm.push(tool_calls(
    {call("e1", "exec",
          {{"command", "echo cat-ready; cat"}, {"yield_time_ms", 500}})}));
  gw.llm.push(tool_calls({call("e2", "list_exec_sessions", json::object())}));
  gw.llm.push(text("cat is running"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat_id = ready_chat(c);
  auto say = [&](const std::string& text) {
    c.send_text(
      json{{"type", "message"}, {"chat_id", chat_id}, {"content", text}}
        .dump());
  };
  say("start cat in the background");
  CHECK(final_message(c) == "cat is running");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 3);
  auto started = last_tool_text(reqs[1].body);
  CHECK(started.find("cat-ready") != std::string::npos);
  CHECK(started.find("Process running. session_id: ") != std::string::npos);
  auto listed = last_tool_text(reqs[2].body);
  CHECK(listed.find(" | running | ") != std::string::npos);
  CHECK(listed.find("echo cat-ready; cat") != std::string::npos);
  auto cats = descendants_named("cat");
  REQUIRE(cats.size() == 1);
  // /stop: nothing else runs, but the chat's background session ends and
  // is counted as the original counts it.
  say("/stop");
  CHECK(final_message(c) == "Stopped 1 task(s).");
  auto until = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < until && !proc_gone(cats[0]))
    std::this_thread::sleep_for(20ms);
  CHECK(proc_gone(cats[0]));
  gw.llm.push(tool_calls({call("e3", "list_exec_sessions", json::object())}));
  gw.llm.push(text("none left"));
  say("anything still running?");
  CHECK(final_message(c) == "none left");
  reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 5);
  CHECK(last_tool_text(reqs[4].body) == "No active exec sessions.");
  say("/stop");
  CHECK(final_message(c) == "No active task to stop.");
}

// /stop through the real actor tree: a running exec's whole process group
// dies at once (grandchildren included) and the lane is free for the next
// turn; a running subagent is stopped with its exec, counted by /status
// and /stop, and never announced.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "tests/integration/harness.hpp"
#include "tests/subagents/gateway.hpp"
#include "tests/support/proc_scan.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {

const char* two_sleeps = "sh -c 'sleep 300 & sleep 300'";

} // namespace

TEST_CASE("stop kills a running exec with its grandchildren and the next turn runs at once") {
  sub_gateway gw; // one session: its calls share one lane
  gw.llm.push(tool_calls({call("s1", "exec", json{{"command", two_sleeps}})}));
  gw.llm.push(tool_calls({call("s2", "exec", json{{"command", "echo free"}})}));
  gw.llm.push(text("ran it"));
  gw.send("start the long job");
  auto pids = wait_for_descendants("sleep", 2);
  REQUIRE(pids.size() == 2);
  caf::scoped_actor stopper{gw.fx.sys};
  inbound_msg stop;
  stop.channel = "test";
  stop.chat_id = "sub";
  stop.content = "/stop";
  stop.reply_to = caf::actor_cast<outbound_sink>(stopper);
  stopper->send(gw.router, stop);
  std::string answer;
  stopper->receive([&](outbound_msg& m) { answer = m.content; },
                   caf::after(30s) >> [&] { answer = "<timeout>"; });
  CHECK(answer == "Stopped 1 task(s).");
  CHECK(gw.reply() == "Stopped before finishing.");
  CHECK(all_gone(pids));
  // The transcript is legal: the stopped call has its result.
  auto msgs = session_messages(gw.cfg, "test:sub");
  REQUIRE(msgs.size() == 3);
  CHECK(msgs[2]["tool_call_id"] == "s1");
  CHECK(msgs[2]["content"].get<std::string>().find("interrupted")
        != std::string::npos);
  // The only lane is free: the next exec does not wait for the killed one.
  auto t0 = steady_clock::now();
  gw.send("now something quick");
  CHECK(gw.reply() == "ran it");
  auto took = duration_cast<milliseconds>(steady_clock::now() - t0).count();
  MESSAGE("the next turn with an exec took " << took << " ms");
  CHECK(took < 30000); // the killed command's timeout is 60 s
  auto last = gw.llm.requests().back().body["messages"].back();
  CHECK(last["content"].get<std::string>().find("free") != std::string::npos);
}

TEST_CASE("stop ends a running subagent and its exec without an announcement") {
  sub_gateway gw;
  gw.llm.set_responder([](const json& body) {
    if (from_subagent(body))
      return tool_calls({call("x1", "exec", json{{"command", two_sleeps}})});
    if (asks(body, "[Subagent"))
      return text("should not be announced");
    if (last_message(body).value("role", "") == "tool")
      return text("started the helper");
    if (asks(body, "anything new?"))
      return text("all quiet");
    return tool_calls({call("sp", "spawn", json{{"task", "sleep a lot"},
                                                {"label", "sleeper"}})});
  });
  gw.send("start a helper");
  CHECK(gw.reply() == "started the helper");
  auto pids = wait_for_descendants("sleep", 2);
  REQUIRE(pids.size() == 2);
  REQUIRE(gw.running().size() == 1);
  CHECK(gw.running()[0].label == "sleeper");
  CHECK(gw.running()[0].session_key == "test:sub");
  gw.send("/status");
  CHECK(gw.reply().find("1 active") != std::string::npos);
  gw.send("/stop");
  CHECK(gw.reply() == "Stopped 1 task(s).");
  CHECK(all_gone(pids));
  auto until = steady_clock::now() + 10s;
  while (!gw.running().empty() && steady_clock::now() < until)
    std::this_thread::sleep_for(20ms);
  CHECK(gw.running().empty());
  gw.send("/status");
  CHECK(gw.reply().find("0 active") != std::string::npos);
  gw.send("/stop");
  CHECK(gw.reply() == "No active task to stop.");
  gw.send("anything new?");
  CHECK(gw.reply() == "all quiet");
  CHECK(gw.pushed(1s).content == "<timeout>");
}

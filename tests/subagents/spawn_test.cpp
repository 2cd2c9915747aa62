// Subagents through the real actor tree: spawn starts a background runner
// whose result is announced back into the session and reaches the user;
// wait=true answers inline; the concurrency limit; the restricted tool set;
// a failing subagent never harms its session.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "tests/integration/harness.hpp"
#include "tests/subagents/gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

fake_response spawn_call(json args, std::string id = "sp1") {
  return tool_calls({call(std::move(id), "spawn", std::move(args))});
}

std::string tool_content(const json& body) {
  auto& last = last_message(body);
  return last.value("role", "") == "tool" ? last.value("content", "") : "";
}

std::vector<std::string> tool_names(const json& body) {
  std::vector<std::string> out;
  for (auto& t : body.value("tools", json::array()))
    out.push_back(t["function"]["name"].get<std::string>());
  return out;
}

bool has_name(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

} // namespace

TEST_CASE("a spawned subagent reports back and the user gets the summary") {
  sub_gateway gw;
  gw.llm.set_responder([](const json& body) {
    if (from_subagent(body)) {
      if (last_message(body).value("role", "") == "user")
        return tool_calls({call("x1", "exec", json{{"command", "echo 42"}})});
      return text("The answer is " + tool_content(body).substr(0, 2) + ".");
    }
    if (asks(body, "[Subagent 'adder' completed successfully]"))
      return text("Good news: the answer is 42.");
    if (last_message(body).value("role", "") == "tool")
      return text("I asked a helper; I will let you know.");
    return spawn_call({{"task", "compute the answer"}, {"label", "adder"}});
  });
  gw.send("what is the answer?");
  CHECK(gw.reply() == "I asked a helper; I will let you know.");
  auto pushed = gw.pushed();
  CHECK(pushed.content == "Good news: the answer is 42.");
  CHECK(pushed.channel == "test");
  CHECK(pushed.chat_id == "sub");
  // The spawn call's result told the model a task started.
  auto main = gw.requests(false);
  REQUIRE(main.size() >= 3);
  CHECK(tool_content(main[1]).find("Subagent [adder] started (id: ")
        != std::string::npos);
  CHECK(has_name(tool_names(main[0]), "spawn"));
  // The subagent had its own context and the restricted tools.
  auto sub = gw.requests(true);
  REQUIRE(sub.size() == 2);
  CHECK(sub[0]["messages"].size() == 2);
  CHECK(sub[0]["messages"][1]["content"] == "compute the answer");
  auto names = tool_names(sub[0]);
  CHECK(has_name(names, "exec"));
  CHECK(has_name(names, "read_file"));
  for (auto* banned : {"spawn", "message", "cron"})
    CHECK_FALSE(has_name(names, banned));
  CHECK(tool_content(sub[1]).find("42") != std::string::npos);
  // The announcement carried the result and is kept in the transcript.
  auto announce = last_message(main.back())["content"].get<std::string>();
  CHECK(announce.find("Result:\nThe answer is 42.") != std::string::npos);
  auto msgs = session_messages(gw.cfg, "test:sub");
  REQUIRE(msgs.size() >= 2);
  CHECK(msgs.back()["content"] == "Good news: the answer is 42.");
  CHECK(gw.running().empty());
}

TEST_CASE("wait true returns the subagent result as the tool output") {
  sub_gateway gw;
  gw.llm.set_responder([](const json& body) {
    if (from_subagent(body))
      return text("inline result: 7 files");
    if (last_message(body).value("role", "") == "tool")
      return text("Helper said: " + tool_content(body));
    return spawn_call({{"task", "count files"}, {"wait", true}});
  });
  gw.send("count them and wait");
  CHECK(gw.reply() == "Helper said: inline result: 7 files");
  // Nothing is announced for an inline run.
  CHECK(gw.pushed(1s).content == "<timeout>");
  CHECK(gw.requests(false).size() == 2);
}

TEST_CASE("a second spawn over the limit is refused without an error") {
  sub_gateway gw(1);
  gw.llm.set_responder([](const json& body) {
    if (from_subagent(body)) {
      auto slow = text("slow job done");
      slow.delay = 1500ms;
      return slow;
    }
    if (asks(body, "[Subagent"))
      return text("reported");
    if (last_message(body).value("role", "") == "tool")
      return text("second said: " + tool_content(body));
    return tool_calls({call("a", "spawn", json{{"task", "job one"}}),
                       call("b", "spawn", json{{"task", "job two"}})});
  });
  gw.send("start two jobs");
  auto reply = gw.reply();
  CHECK(reply.find("second said: Cannot spawn subagent: concurrency limit "
                   "reached (1/1 running).")
        == 0);
  CHECK(reply.find("[Analyze") == std::string::npos); // not an error
  CHECK(gw.pushed().content == "reported");
  CHECK(gw.requests(true).size() == 1);
}

TEST_CASE("a subagent may not use tools outside its scope") {
  sub_gateway gw;
  gw.llm.set_responder([](const json& body) {
    if (from_subagent(body))
      return tool_calls({call("m1", "message", json{{"content", "hi user"}})});
    if (asks(body, "[Subagent"))
      return text(asks(body, "failed]") ? "it failed" : "it worked");
    if (last_message(body).value("role", "") == "tool")
      return text("started");
    return spawn_call({{"task", "say hi to the user"}});
  });
  gw.send("greet");
  CHECK(gw.reply() == "started");
  CHECK(gw.pushed().content == "it failed");
  auto main = gw.requests(false);
  auto announce = last_message(main.back())["content"].get<std::string>();
  CHECK(announce.find("Failure: message: Error: Tool 'message' is not "
                      "available")
        != std::string::npos);
  // failOnToolError: the subagent stopped at the refused call.
  CHECK(gw.requests(true).size() == 1);
}

TEST_CASE("a failing subagent never harms its session") {
  sub_gateway gw;
  gw.llm.set_responder([](const json& body) {
    if (from_subagent(body))
      return error(400, "this model rejects the request");
    if (asks(body, "[Subagent"))
      return text(asks(body, "failed]") ? "the helper failed" : "?");
    if (last_message(body).value("role", "") == "tool")
      return text("started");
    if (asks(body, "still there?"))
      return text("yes, still here");
    return spawn_call({{"task", "doomed"}});
  });
  gw.send("try it");
  CHECK(gw.reply() == "started");
  CHECK(gw.pushed().content == "the helper failed");
  gw.send("still there?");
  CHECK(gw.reply() == "yes, still here");
  CHECK(gw.running().empty());
}

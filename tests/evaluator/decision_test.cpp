// How the evaluator's request is built and how a reply becomes a verdict.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "actors/evaluator/decision.hpp"

namespace {

using namespace nb;
using json = nlohmann::json;

model_reply tool_reply(std::string args, std::string finish = "tool_calls") {
  model_reply r;
  r.finish_reason = std::move(finish);
  r.tool_calls.push_back({"call_1", evaluate_tool_name, std::move(args)});
  return r;
}

model_reply text_reply(std::string text) {
  model_reply r;
  r.finish_reason = "stop";
  r.content = std::move(text);
  return r;
}

} // namespace

TEST_CASE("the request carries the prompt task and response with one tool") {
  eval_request rq{"heartbeat", "check the mail", "3 new mails", false, ""};
  auto m = make_evaluation_request(rq, "GATE", "model-x");
  CHECK(m.model == "model-x");
  CHECK(m.temperature == 0.0);
  CHECK(m.max_tokens == 4096);
  CHECK_FALSE(m.stream);
  auto msgs = json::parse(m.messages_json);
  REQUIRE(msgs.size() == 2);
  CHECK(msgs[0]["role"] == "system");
  CHECK(msgs[0]["content"] == "GATE");
  CHECK(msgs[1]["role"] == "user");
  CHECK(msgs[1]["content"]
        == "## Original task\ncheck the mail\n\n## Agent response\n3 new mails");
  auto tools = json::parse(m.tools_json);
  REQUIRE(tools.size() == 1);
  auto& fn = tools[0]["function"];
  CHECK(fn["name"] == "evaluate_notification");
  CHECK(fn["parameters"]["required"] == json::array({"should_notify"}));
  CHECK(fn["parameters"]["properties"]["should_notify"]["type"] == "boolean");
  CHECK(fn["parameters"]["properties"]["reason"]["type"] == "string");
}

TEST_CASE("the tool call decides both ways") {
  auto yes = decide(tool_reply(R"({"should_notify":true,"reason":"new mail"})"),
                    false);
  CHECK(yes.should_notify);
  CHECK(yes.decided_by_model);
  CHECK(yes.reason == "new mail");
  auto no = decide(tool_reply(R"({"should_notify":false,"reason":"routine"})"),
                   true);
  CHECK_FALSE(no.should_notify);
  CHECK(no.decided_by_model);
}

TEST_CASE("a text-only reply gives the caller's default") {
  auto closed = decide(text_reply("You should notify them."), false);
  CHECK_FALSE(closed.should_notify);
  CHECK_FALSE(closed.decided_by_model);
  auto open = decide(text_reply("no idea"), true);
  CHECK(open.should_notify);
  CHECK_FALSE(open.decided_by_model);
}

TEST_CASE("a provider error gives the caller's default") {
  model_reply err;
  err.finish_reason = "error";
  err.error = "HTTP 500";
  CHECK_FALSE(decide(err, false).should_notify);
  CHECK(decide(err, true).should_notify);
  CHECK(decide(err, false).reason.find("HTTP 500") != std::string::npos);
}

TEST_CASE("a tool call cut off by the token limit is not a decision") {
  auto v = decide(tool_reply(R"({"should_notify":true})", "length"), false);
  CHECK_FALSE(v.should_notify);
  CHECK_FALSE(v.decided_by_model);
}

TEST_CASE("unreadable arguments give the caller's default") {
  CHECK_FALSE(decide(tool_reply("{not json"), false).should_notify);
  CHECK(decide(tool_reply("{not json"), true).should_notify);
  CHECK_FALSE(decide(tool_reply(R"({"reason":"x"})"), false).should_notify);
  CHECK_FALSE(decide(tool_reply(R"({"should_notify":"yes"})"), false)
                .decided_by_model);
  // Arguments sent as a JSON string holding the object still count.
  CHECK(decide(tool_reply(R"("{\"should_notify\":true}")"), false)
          .should_notify);
}

TEST_CASE("only the first tool call counts") {
  auto r = tool_reply(R"({"should_notify":false})");
  r.tool_calls.push_back({"call_2", evaluate_tool_name,
                          R"({"should_notify":true})"});
  CHECK_FALSE(decide(r, true).should_notify);
}

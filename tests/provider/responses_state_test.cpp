// The Responses conversation state as pure functions: a request resumes a
// state of its own endpoint and model (its items, then only the pending
// messages), anything else sends the whole transcript; an answer's items
// become the next state in the original's shape; server compaction's
// threshold and the items a compaction replaces.
#include <doctest/doctest.h>

#include "actors/provider/openai_wire.hpp"
#include "actors/provider/responses_state.hpp"
#include "actors/provider/responses_wire.hpp"
#include "tests/support/fake_openai_responses.hpp"

using namespace nb;
using json = nlohmann::json;
namespace rs = nb::test::responses;

namespace {

const std::string state_owner = "openai_compat:openai:https://api.openai.com/v1";

json state_items() {
  auto reasoning = rs::reasoning_item("rs_1", "t");
  reasoning["encrypted_content"] = "gAAAA-1";
  return json::array({{{"role", "user"},
                       {"content", json::array({{{"type", "input_text"},
                                                 {"text", "hi"}}})}},
                      reasoning, rs::message_item("msg_1", "hello")});
}

conversation_state saved_state(std::string model = "gpt-5",
                               json pending = json::array()) {
  json state{{"kind", "openai_responses"}, {"provider", state_owner},
             {"model", model}, {"version", 1},
             {"payload", {{"items", state_items()}, {"context_tokens", 9}}},
             {"pending_messages", pending}};
  return {std::make_shared<const std::string>(state.dump()), {}};
}

json body_for(const model_request& r, const std::string& model,
              const body_options& opts) {
  std::string err;
  auto text = build_responses_body(r, model, err, opts);
  REQUIRE(err.empty());
  return json::parse(text);
}

model_request transcript_request() {
  model_request r;
  r.messages_json = json::array({{{"role", "system"}, {"content", "be kind"}},
                                 {{"role", "user"}, {"content", "hi"}},
                                 {{"role", "assistant"}, {"content", "hello"}},
                                 {{"role", "user"}, {"content", "again"}}})
                      .dump();
  return r;
}

} // namespace

TEST_CASE("responses state: its own endpoint and model resume its items") {
  auto r = transcript_request();
  r.conversation = saved_state(
    "gpt-5", json::array({{{"role", "user"}, {"content", "from the file"}}}));
  r.conversation.pending = {json{{"role", "user"}, {"content", "again"}}.dump()};
  body_options opts;
  opts.conversation_provider = state_owner;
  auto body = body_for(r, "gpt-5", opts);
  CHECK(body["instructions"] == "be kind");
  auto& input = body["input"];
  REQUIRE(input.size() == 5);
  for (size_t i = 0; i < 3; ++i)
    CHECK(input[i] == state_items()[i]);
  CHECK(input[3]["content"][0]["text"] == "from the file");
  CHECK(input[4]["content"][0]["text"] == "again");
  CHECK(body["store"] == false);
  CHECK_FALSE(body.contains("context_management"));

  // Another model, another endpoint, no owner given: the whole transcript.
  for (auto [model, owner] :
       {std::pair<std::string, std::string>{"gpt-5-mini", state_owner},
        {"gpt-5", "openai_compat:openai:http://127.0.0.1:9/v1"},
        {"gpt-5", ""}}) {
    CAPTURE(model);
    CAPTURE(owner);
    body_options other;
    other.conversation_provider = owner;
    auto full = body_for(r, model, other);
    REQUIRE(full["input"].size() == 3);
    CHECK(full["input"][1]["type"] == "message");
    CHECK(full["input"][2]["content"][0]["text"] == "again");
  }
}

TEST_CASE("responses state: gpt-5.6 resumes with all turns' reasoning; "
          "compaction is asked below the window") {
  auto r = transcript_request();
  r.conversation = saved_state("gpt-5.6");
  body_options opts;
  opts.conversation_provider = state_owner;
  opts.reasoning_effort = "high";
  opts.compact_threshold = responses_compact_threshold(400000, 8192);
  auto body = body_for(r, "gpt-5.6", opts);
  CHECK(body["reasoning"] == json{{"effort", "high"}, {"context", "all_turns"}});
  CHECK(body["context_management"]
        == json::parse(R"([{"type": "compaction", "compact_threshold": 360000}])"));
  CHECK(responses_compact_threshold(10000, 8192) == 1808);
  CHECK(responses_compact_threshold(0, 8192) == 0);
  CHECK(responses_compaction_refused(
    400, "HTTP 400: Unknown parameter: 'context_management'"));
  CHECK_FALSE(responses_compaction_refused(500, "context_management"));
  CHECK_FALSE(responses_compaction_refused(400, "Unknown parameter: 'foo'"));
}

TEST_CASE("responses state: an answer's items become the next state") {
  auto reasoning = rs::reasoning_item("rs_2", "t");
  reasoning["encrypted_content"] = "gAAAA-2";
  json output = json::array({reasoning, rs::message_item("msg_2", "fine")});
  auto whole = rs::response(output, rs::usage(300, 20));
  model_reply reply;
  REQUIRE(parse_responses_body(whole.body, reply).empty());
  json sent{{"model", "gpt-5"}, {"input", state_items()}};
  settle_responses_state(reply, state_owner, sent.dump());
  CHECK(reply.stateful);
  REQUIRE(reply.conversation.record);
  auto state = json::parse(*reply.conversation.record);
  CHECK(state["kind"] == "openai_responses");
  CHECK(state["provider"] == state_owner);
  CHECK(state["model"] == "gpt-5");
  CHECK(state["version"] == 1);
  auto items = state_items();
  items.push_back(output[0]);
  items.push_back(output[1]);
  CHECK(state["payload"]["items"] == items);
  CHECK(state["payload"]["context_tokens"] == 320);
  CHECK(state["pending_messages"] == json::array());

  // Cut short: no state to go on from (the caller drops its own).
  model_reply cut;
  REQUIRE(parse_responses_body(rs::response(output, rs::usage(1, 1), "incomplete").body,
                               cut)
            .empty());
  settle_responses_state(cut, state_owner, sent.dump());
  CHECK(cut.stateful);
  CHECK_FALSE(cut.conversation.record);

  // A compaction item in the output stands for everything before it.
  json compacted = json::array(
    {{{"type", "compaction"}, {"id", "cmp_1"}, {"encrypted_content", "c"}},
     rs::message_item("msg_3", "ok")});
  auto next = responses_next_state(state_owner, "gpt-5", state_items(),
                                   compacted, token_usage{});
  auto cstate = json::parse(*next);
  CHECK(cstate["payload"]["items"] == compacted);
  CHECK_FALSE(cstate["payload"].contains("context_tokens"));
}

TEST_CASE("responses state: a streamed answer keeps every output item") {
  auto reasoning = rs::reasoning_item("rs_5", "thinking");
  reasoning["encrypted_content"] = "gAAAA-5";
  auto frames = rs::stream(
    json::array({reasoning, rs::function_call_item("fc_1", "call_1", "exec",
                                                   R"({"cmd":"ls"})")}));
  responses_stream s;
  sse_splitter split;
  for (auto& frame : frames.events)
    split.feed(frame, [&](std::string_view data) { s.apply(data); });
  REQUIRE(s.finished());
  model_reply reply;
  s.finish(reply);
  CHECK(reply.finish_reason == "tool_calls");
  json sent{{"model", "o3"}, {"input", json::array()}};
  settle_responses_state(reply, state_owner, sent.dump());
  REQUIRE(reply.conversation.record);
  auto items = json::parse(*reply.conversation.record)["payload"]["items"];
  REQUIRE(items.size() == 2);
  CHECK(items[0]["encrypted_content"] == "gAAAA-5");
  CHECK(items[1]["call_id"] == "call_1");

  // A failed call: a transient failure keeps the caller's state, any
  // other drops it.
  model_reply failed;
  settle_failed_responses_state(failed, true);
  CHECK_FALSE(failed.stateful);
  settle_failed_responses_state(failed, false);
  CHECK(failed.stateful);
  CHECK_FALSE(failed.conversation.record);
}

// Anthropic Messages API wire format: anthropic_request conversion, whole
// answers and the SSE event decoder, as pure functions.
#include <doctest/doctest.h>

#include "actors/provider/anthropic_wire.hpp"
#include "tests/support/fake_anthropic.hpp"

using namespace nb;
using json = nlohmann::json;

namespace {

model_request anthropic_request(json messages, json tools = nullptr) {
  model_request r;
  r.messages_json = messages.dump();
  if (!tools.is_null())
    r.tools_json = tools.dump();
  r.max_tokens = 512;
  r.temperature = 0.3;
  return r;
}

json body_of(const model_request& r) {
  std::string err;
  auto text = build_anthropic_body(r, "claude-x", err);
  REQUIRE(err.empty());
  return json::parse(text);
}

json tool_call_json(std::string id, std::string name, json args) {
  return {{"id", id},
          {"type", "function"},
          {"function", {{"name", name}, {"arguments", args.dump()}}}};
}

/// Feeds a scripted stream's events through the decoder.
model_reply decode(const test::fake_response& r,
                   std::vector<stream_piece>* pieces = nullptr) {
  anthropic_stream s;
  for (auto& ev : r.events) {
    auto at = ev.find("data: ");
    auto data = ev.substr(at + 6, ev.size() - at - 8);
    for (auto& p : s.apply(data))
      if (pieces)
        pieces->push_back(p);
  }
  CHECK(s.finished());
  CHECK(s.error().empty());
  model_reply out;
  s.finish(out);
  return out;
}

} // namespace

TEST_CASE("system messages become the system field with a cache marker") {
  auto b = body_of(anthropic_request(
    json::array({{{"role", "system"}, {"content", "You are terse."}},
                 {{"role", "user"}, {"content", "hi"}}})));
  CHECK(b["model"] == "claude-x");
  CHECK(b["max_tokens"] == 512);
  CHECK(b["temperature"] == 0.3);
  REQUIRE(b["system"].size() == 1);
  CHECK(b["system"][0]["text"] == "You are terse.");
  CHECK(b["system"][0]["cache_control"]["type"] == "ephemeral");
  REQUIRE(b["messages"].size() == 1);
  CHECK(b["messages"][0]["role"] == "user");
  CHECK(b["messages"][0]["content"][0]["text"] == "hi");
  CHECK_FALSE(b.contains("stream"));
}

TEST_CASE("tool calls and results become tool_use and tool_result blocks") {
  auto b = body_of(anthropic_request(json::array(
    {{{"role", "user"}, {"content", "read two files"}},
     {{"role", "assistant"},
      {"content", "Reading."},
      {"tool_calls",
       json::array(
         {tool_call_json("toolu_1", "read_file", {{"path", "a.md"}}),
          tool_call_json("toolu_2", "read_file", {{"path", "b.md"}})})}},
     {{"role", "tool"}, {"tool_call_id", "toolu_1"}, {"content", "A"}},
     {{"role", "tool"}, {"tool_call_id", "toolu_2"}, {"content", ""}},
     {{"role", "user"}, {"content", "thanks"}}})));
  auto& m = b["messages"];
  REQUIRE(m.size() == 3);
  auto& a = m[1]["content"];
  CHECK(m[1]["role"] == "assistant");
  REQUIRE(a.size() == 3);
  CHECK(a[0] == json{{"type", "text"}, {"text", "Reading."}});
  CHECK(a[1]["type"] == "tool_use");
  CHECK(a[1]["id"] == "toolu_1");
  CHECK(a[1]["input"] == json{{"path", "a.md"}});
  CHECK(a[2]["id"] == "toolu_2");
  // Both results and the next user text merge into one user turn.
  auto& u = m[2]["content"];
  CHECK(m[2]["role"] == "user");
  REQUIRE(u.size() == 3);
  CHECK(u[0]["type"] == "tool_result");
  CHECK(u[0]["tool_use_id"] == "toolu_1");
  CHECK(u[0]["content"] == "A");
  CHECK(u[1]["content"] == "(empty)");
  CHECK(u[2]["text"] == "thanks");
}

TEST_CASE("consecutive same-role turns merge and the history starts with a user") {
  std::string err;
  json system, out;
  REQUIRE(to_anthropic_messages(
    json::array({{{"role", "assistant"}, {"content", "earlier answer"}},
                 {{"role", "user"}, {"content", "one"}},
                 {{"role", "user"}, {"content", "two"}},
                 {{"role", "assistant"}, {"content", "prefill"}}}),
    system, out, err));
  REQUIRE(out.size() == 3);
  CHECK(out[0]["role"] == "user");
  CHECK(out[0]["content"][0]["text"] == "(conversation continued)");
  CHECK(out[1]["role"] == "assistant");
  CHECK(out[2]["role"] == "user");
  CHECK(out[2]["content"].size() == 2);
  CHECK(system.empty());
  CHECK_FALSE(to_anthropic_messages(json::object(), system, out, err));
  CHECK(err.find("not a JSON array") != std::string::npos);
}

TEST_CASE("images become image blocks") {
  auto b = body_of(anthropic_request(json::array(
    {{{"role", "user"},
      {"content",
       json::array(
         {{{"type", "text"}, {"text", "what is this?"}},
          {{"type", "image_url"},
           {"image_url", {{"url", "data:image/png;base64,iVBORw0K"}}}},
          {{"type", "image_url"},
           {"image_url", {{"url", "https://x.test/cat.jpg"}}}}})}}})));
  auto& c = b["messages"][0]["content"];
  REQUIRE(c.size() == 3);
  CHECK(c[1]["type"] == "image");
  CHECK(c[1]["source"] == json{{"type", "base64"},
                               {"media_type", "image/png"},
                               {"data", "iVBORw0K"}});
  CHECK(c[2]["source"] == json{{"type", "url"}, {"url", "https://x.test/cat.jpg"}});
}

TEST_CASE("thinking blocks are replayed first with their signatures") {
  auto thinking = json::array(
    {test::anthropic::thinking_block("Let me think.", "sig-abc"),
     {{"type", "redacted_thinking"}, {"data", "opaque"}}});
  auto b = body_of(anthropic_request(json::array(
    {{{"role", "user"}, {"content", "q"}},
     {{"role", "assistant"},
      {"content", nullptr},
      {"thinking_blocks", thinking},
      {"tool_calls",
       json::array({tool_call_json("t1", "list_dir", {{"path", "."}})})}},
     {{"role", "tool"}, {"tool_call_id", "t1"}, {"content", "x"}}})));
  auto& a = b["messages"][1]["content"];
  REQUIRE(a.size() == 3);
  CHECK(a[0] == thinking[0]);
  CHECK(a[1] == thinking[1]);
  CHECK(a[2]["type"] == "tool_use");
}

TEST_CASE("cache markers sit on tools and the second-to-last message") {
  json tools = json::array();
  for (auto name : {"read_file", "exec"})
    tools.push_back({{"type", "function"},
                     {"function", {{"name", name},
                                   {"description", "d"},
                                   {"parameters", {{"type", "object"}}}}}});
  auto r =
    anthropic_request(json::array({{{"role", "user"}, {"content", "a"}},
                                   {{"role", "assistant"}, {"content", "b"}},
                                   {{"role", "user"}, {"content", "c"}}}),
                      tools);
  r.stream = true;
  auto b = body_of(r);
  CHECK(b["stream"] == true);
  REQUIRE(b["tools"].size() == 2);
  CHECK(b["tools"][0]["name"] == "read_file");
  CHECK(b["tools"][0]["input_schema"] == json{{"type", "object"}});
  CHECK_FALSE(b["tools"][0].contains("cache_control"));
  CHECK(b["tools"][1]["cache_control"]["type"] == "ephemeral");
  CHECK(b["tool_choice"] == json{{"type", "auto"}});
  auto& m = b["messages"];
  CHECK(m[1]["content"].back()["cache_control"]["type"] == "ephemeral");
  CHECK_FALSE(m[0]["content"].back().contains("cache_control"));
  CHECK_FALSE(m[2]["content"].back().contains("cache_control"));
}

TEST_CASE("stop reasons are mapped") {
  CHECK(map_stop_reason("tool_use") == "tool_calls");
  CHECK(map_stop_reason("end_turn") == "stop");
  CHECK(map_stop_reason("stop_sequence") == "stop");
  CHECK(map_stop_reason("max_tokens") == "length");
  CHECK(map_stop_reason("refusal") == "content_filter");
}

TEST_CASE("a whole message is parsed with thinking tools and usage") {
  model_reply r;
  auto body = json{{"type", "message"},
                   {"content",
                    json::array({test::anthropic::thinking_block("hmm", "s1"),
                                 test::anthropic::text_block("Checking."),
                                 test::anthropic::tool_use_block(
                                   "toolu_9", "exec", {{"command", "ls"}})})},
                   {"stop_reason", "tool_use"},
                   {"usage", test::anthropic::usage(100, 20, 60)}};
  CHECK(parse_anthropic_message(body.dump(), r).empty());
  CHECK(r.content == "Checking.");
  CHECK(r.reasoning_content == "hmm");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "toolu_9");
  CHECK(json::parse(r.tool_calls[0].arguments_json) == json{{"command", "ls"}});
  CHECK(json::parse(r.thinking_blocks_json)[0]["signature"] == "s1");
  CHECK(r.usage.prompt_tokens == 160);
  CHECK(r.usage.cached_tokens == 60);
  CHECK(r.usage.completion_tokens == 20);
  model_reply bad;
  CHECK(parse_anthropic_message(
          R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too big"}})",
          bad)
          .find("max_tokens: too big")
        != std::string::npos);
  CHECK(parse_anthropic_message("<html>", bad).find("not a JSON") != std::string::npos);
}

TEST_CASE("a streamed message is rebuilt from its events") {
  auto s = test::anthropic::stream(
    json::array({test::anthropic::thinking_block("step one", "sig-9"),
                 test::anthropic::text_block("Here you go."),
                 test::anthropic::tool_use_block("toolu_1", "read_file",
                                                 {{"path", "x/y.md"}})}),
    "tool_use", test::anthropic::usage(30, 9, 10), 3);
  std::vector<stream_piece> pieces;
  auto r = decode(s, &pieces);
  std::string visible, reasoning;
  for (auto& p : pieces)
    (p.reasoning ? reasoning : visible) += p.text;
  CHECK(visible == "Here you go.");
  CHECK(reasoning == "step one");
  CHECK(r.content == "Here you go.");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(json::parse(r.tool_calls[0].arguments_json) == json{{"path", "x/y.md"}});
  auto blocks = json::parse(r.thinking_blocks_json);
  CHECK(blocks[0]["thinking"] == "step one");
  CHECK(blocks[0]["signature"] == "sig-9");
  CHECK(r.usage.prompt_tokens == 40);
  CHECK(r.usage.cached_tokens == 10);
  CHECK(r.usage.completion_tokens == 9);
}

TEST_CASE("an error event or a non-JSON event makes the stream unusable") {
  anthropic_stream s;
  s.apply(R"({"type":"message_start","message":{"usage":{"input_tokens":3}}})");
  s.apply(R"({"type":"ping"})");
  CHECK(s.error().empty());
  s.apply(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  CHECK(s.error() == "Model returned an error: Overloaded");
  CHECK_FALSE(s.finished());
  anthropic_stream t;
  t.apply("{nope");
  CHECK(t.error().find("not JSON") != std::string::npos);
}

TEST_CASE("an index or a token count far out of range is clamped") {
  // Found by fuzz_anthropic_stream: converting 1.5e74 to int64_t was
  // undefined behaviour.
  anthropic_stream s;
  s.apply(R"({"type":"message_start","message":{"usage":{"input_tokens":1e300,)"
          R"("cache_read_input_tokens":18446744073709551615,)"
          R"("cache_creation_input_tokens":9223372036854775807}}})");
  s.apply(R"({"type":"content_block_start","index":1.5e74,)"
          R"("content_block":{"type":"text","text":""}})");
  s.apply(R"({"type":"content_block_delta","index":1.5e74,)"
          R"("delta":{"type":"text_delta","text":"far"}})");
  s.apply(R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},)"
          R"("usage":{"output_tokens":-1e300}})");
  CHECK(s.error().empty());
  model_reply out;
  s.finish(out);
  CHECK(out.content == "far");
  constexpr int64_t limit = int64_t{1} << 53;
  CHECK(out.usage.prompt_tokens == 3 * limit);
}

// The wire format and the retry rules as pure functions: bodies, parsing of
// hostile responses, SSE framing, Retry-After, redaction.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "actors/provider/openai_wire.hpp"
#include "actors/provider/request_extras.hpp"
#include "actors/provider/retry_policy.hpp"

namespace {

using namespace nb;
using json = nlohmann::json;

model_request request(bool stream = false) {
  model_request r;
  r.messages_json = R"([{"role":"user","content":"hi"}])";
  r.max_tokens = 100;
  r.temperature = 0.1;
  r.stream = stream;
  return r;
}

} // namespace

TEST_CASE("the request body carries model messages tools and limits") {
  auto req = request(true);
  req.tools_json = R"([{"type":"function","function":{"name":"f"}}])";
  std::string err;
  auto body = json::parse(build_chat_body(req, "m1", err));
  CHECK(err.empty());
  CHECK(body["model"] == "m1");
  CHECK(body["messages"][0]["content"] == "hi");
  CHECK(body["tools"][0]["function"]["name"] == "f");
  CHECK(body["tool_choice"] == "auto");
  CHECK(body["max_tokens"] == 100);
  CHECK(body["temperature"] == doctest::Approx(0.1));
  CHECK(body["stream"] == true);
  CHECK(body["stream_options"]["include_usage"] == true);
}

TEST_CASE("defaults and reasoning models shape the body") {
  auto req = request();
  req.temperature = -1;
  req.max_tokens = 0;
  std::string err;
  auto body = json::parse(build_chat_body(req, "m", err));
  CHECK_FALSE(body.contains("temperature"));
  CHECK_FALSE(body.contains("max_tokens"));
  CHECK_FALSE(body.contains("tools"));
  CHECK_FALSE(body.contains("stream"));
  auto o3 = json::parse(build_chat_body(request(), "openai/o3-mini", err));
  CHECK(o3["max_completion_tokens"] == 100);
  CHECK_FALSE(o3.contains("temperature"));
}

TEST_CASE("the body put together from the texts equals the parsed one") {
  // Without extraBody the messages and tools go into the body as written;
  // with one ("{}" changes nothing) the body is built as a tree. Both must
  // say the same thing.
  auto req = request(true);
  req.messages_json =
    R"([{"role":"system","content":"s \"q\" \u00e9"},)"
    R"({"role":"user","content":[{"type":"text","text":"x"}]}])";
  req.tools_json = R"([{"type":"function","function":{"name":"f",)"
                   R"("description":"d","parameters":{"type":"object"}}}])";
  body_options opts;
  opts.reasoning_effort = "high";
  opts.thinking_style = "enable_thinking";
  std::string err;
  auto spliced = json::parse(build_chat_body(req, "m", err, opts));
  CHECK(err.empty());
  opts.extra_body = "{}";
  auto tree = json::parse(build_chat_body(req, "m", err, opts));
  CHECK(err.empty());
  CHECK(spliced == tree);
  CHECK(spliced["reasoning_effort"] == "high");
  CHECK(spliced["enable_thinking"] == true);
  // No tools offered: neither tools nor tool_choice.
  req.tools_json = " [ ] ";
  opts.extra_body.clear();
  auto none = json::parse(build_chat_body(req, "m", err, opts));
  CHECK_FALSE(none.contains("tools"));
  CHECK_FALSE(none.contains("tool_choice"));
  // Anthropic's thinking blocks never reach an OpenAI-compatible server.
  req.messages_json = R"([{"role":"assistant","content":"a",)"
                      R"("thinking_blocks":[{"type":"thinking"}]}])";
  auto stripped = json::parse(build_chat_body(req, "m", err, opts));
  CHECK_FALSE(stripped["messages"][0].contains("thinking_blocks"));
  req.tools_json = R"({"not":"an array"})";
  CHECK(build_chat_body(req, "m", err, opts).empty());
  CHECK(err.find("tools") != std::string::npos);
}

TEST_CASE("bad messages json is refused before any request") {
  auto req = request();
  req.messages_json = "{not json";
  std::string err;
  CHECK(build_chat_body(req, "m", err).empty());
  CHECK(err.find("messages") != std::string::npos);
}

TEST_CASE("a completion is parsed with reasoning tool calls and usage") {
  auto body = R"({"choices":[{"message":{"content":[{"type":"text","text":"a"},
    {"type":"text","text":"b"}],"reasoning_content":"think",
    "tool_calls":[{"id":"c1","type":"function","function":{"name":"f",
    "arguments":"{\"x\":1}"}},{"function":{"name":null,"arguments":"{\"x\":"}},
    {"id":"c3","function":{"name":7,"arguments":{"y":2}}}]},
    "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,
    "completion_tokens":4,"total_tokens":1,
    "prompt_tokens_details":{"cached_tokens":2}}})";
  model_reply r;
  CHECK(parse_completion(body, r).empty());
  CHECK(r.content == "ab");
  CHECK(r.reasoning_content == "think");
  REQUIRE(r.tool_calls.size() == 3);
  CHECK(r.tool_calls[0].name == "f");
  CHECK(r.tool_calls[0].arguments_json == R"({"x":1})");
  CHECK(r.tool_calls[1].name.empty());
  CHECK_FALSE(r.tool_calls[1].id.empty());
  CHECK(r.tool_calls[1].arguments_json == R"({"x":)");
  CHECK(r.tool_calls[2].name.empty());
  CHECK(r.tool_calls[2].arguments_json == R"({"y":2})");
  CHECK(r.finish_reason == "tool_calls");
  CHECK(r.usage.total_tokens == 7);
  CHECK(r.usage.cached_tokens == 2);
}

TEST_CASE("hostile 200 bodies become errors not crashes") {
  model_reply r;
  CHECK(parse_completion("<html><body>Bad gateway</body></html>", r)
          .find("not a JSON completion")
        != std::string::npos);
  CHECK(parse_completion(R"({"choices":[{"message":{"content":"a)", r)
          .find("not a JSON completion")
        != std::string::npos);
  CHECK(parse_completion(R"({"choices":[]})", r).find("no choices")
        != std::string::npos);
  CHECK(parse_completion(R"({"choices":"x"})", r).find("no choices")
        != std::string::npos);
  CHECK(parse_completion(R"({"error":{"message":"boom"}})", r)
          .find("boom")
        != std::string::npos);
  CHECK_FALSE(parse_completion("", r).empty());
  CHECK_FALSE(parse_completion("[1,2]", r).empty());
  std::string deep(100000, '[');
  CHECK(parse_completion(deep + std::string(100000, ']'), r)
          .find("nested too deeply")
        != std::string::npos);
}

TEST_CASE("a null message is an empty answer for the runner to judge") {
  model_reply r;
  CHECK(parse_completion(R"({"choices":[{"message":null,
    "finish_reason":null}]})", r).empty());
  CHECK(r.content.empty());
  CHECK(r.finish_reason == "stop");
}

TEST_CASE("sse framing ignores comments and handles CRLF and splits") {
  sse_splitter s;
  std::vector<std::string> got;
  auto on = [&](std::string_view d) { got.emplace_back(d); };
  s.feed(": ping\n\n: ping\r\n\r\n", on);
  CHECK(got.empty());
  s.feed("event: x\r\ndata: {\"a\"", on);
  s.feed(":1}\r\n\r\ndata: [DO", on);
  CHECK(got == std::vector<std::string>{R"({"a":1})"});
  s.feed("NE]\n\n", on);
  CHECK(got.back() == "[DONE]");
  s.feed("data: a\ndata: b\n\n", on);
  CHECK(got.back() == "a\nb");
}

TEST_CASE("stream chunks rebuild text and tool calls by index") {
  stream_accumulator acc;
  auto chunk = [](json delta, json finish = nullptr) {
    return json{{"choices", {{{"index", 0}, {"delta", delta},
                              {"finish_reason", finish}}}}}
      .dump();
  };
  CHECK(acc.apply(chunk({{"content", "Hel"}})).at(0).text == "Hel");
  CHECK(acc.apply(chunk({{"reasoning_content", "hmm"}})).at(0).reasoning);
  acc.apply(chunk({{"tool_calls", {{{"index", 1}, {"id", "b"},
    {"function", {{"name", "g"}, {"arguments", ""}}}}}}}));
  acc.apply(chunk({{"tool_calls", {{{"index", 0}, {"id", "a"},
    {"function", {{"name", "f"}, {"arguments", "{\"p\":"}}}}}}}));
  acc.apply(chunk({{"tool_calls", {{{"index", 1},
    {"function", {{"arguments", "{}"}}}}}}}));
  acc.apply(chunk({{"tool_calls", {{{"index", 0},
    {"function", {{"arguments", "1}"}}}}}}}));
  acc.apply(chunk({{"content", "lo"}}, "tool_calls"));
  acc.apply(R"({"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":6}})");
  acc.apply("[DONE]");
  CHECK(acc.done());
  CHECK(acc.emitted());
  model_reply r;
  acc.finish(r);
  CHECK(r.content == "Hello");
  CHECK(r.reasoning_content == "hmm");
  REQUIRE(r.tool_calls.size() == 2);
  CHECK(r.tool_calls[0].id == "a");
  CHECK(r.tool_calls[0].arguments_json == R"({"p":1})");
  CHECK(r.tool_calls[1].name == "g");
  CHECK(r.finish_reason == "tool_calls");
  CHECK(r.usage.total_tokens == 11);
}

TEST_CASE("a stream error chunk or garbage chunk is an error") {
  stream_accumulator a;
  a.apply(R"({"error":{"message":"overloaded"}})");
  CHECK(a.error().find("overloaded") != std::string::npos);
  stream_accumulator b;
  b.apply("not json");
  CHECK_FALSE(b.error().empty());
}

TEST_CASE("retryable statuses follow the original") {
  for (int s : {408, 409, 429, 500, 502, 503, 504})
    CHECK(retryable_status(s, "{}"));
  for (int s : {400, 401, 403, 404, 422})
    CHECK_FALSE(retryable_status(s, "{}"));
  CHECK_FALSE(retryable_status(
    429, R"({"error":{"code":"insufficient_quota","message":"x"}})"));
  CHECK_FALSE(retryable_status(429, "You exceeded your current quota"));
  attempt_failure timeout{failure_kind::timeout, 0, "t", true, {}};
  attempt_failure reset{failure_kind::connection, 0, "c", true, {}};
  CHECK(should_retry(timeout, true));
  CHECK_FALSE(should_retry(reset, true));
  CHECK(should_retry(reset, false));
}

TEST_CASE("retry-after hints in seconds milliseconds and dates") {
  using std::chrono::milliseconds;
  CHECK(retry_after_hint("7", "") == milliseconds{7000});
  CHECK(retry_after_hint("", "1500") == milliseconds{1500});
  CHECK(retry_after_hint("7", "250") == milliseconds{250});
  CHECK_FALSE(retry_after_hint("", ""));
  CHECK_FALSE(retry_after_hint("soon", ""));
  auto now = std::chrono::system_clock::from_time_t(1445412470); // 07:27:50
  auto h = retry_after_hint("Wed, 21 Oct 2015 07:28:00 GMT", "", now);
  REQUIRE(h);
  CHECK(*h == milliseconds{10000});
}

TEST_CASE("error details are short and never carry the key") {
  CHECK(http_error_detail(500, "<html>oops</html>") == "HTTP 500");
  CHECK(http_error_detail(401, R"({"error":{"message":"bad key"}})")
        == "HTTP 401: bad key");
  auto key = "sk-test-0123456789abcdef";
  auto text = redact("Incorrect API key provided: sk-test-0123456789abcdef; "
                     "also sk-test-****cdef.",
                     key);
  CHECK(text.find(key) == std::string::npos);
  CHECK(text.find("cdef") == std::string::npos);
  CHECK(text.find("Incorrect API key provided") != std::string::npos);
}

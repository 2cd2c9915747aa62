// OpenAI Responses API wire format as pure functions: chat history into
// `input` items, request bodies, whole answers, the SSE event decoder fed
// with the scripted server's real frames, the auto rule and the breaker.
#include <doctest/doctest.h>

#include "actors/provider/fallback.hpp"
#include "actors/provider/openai_wire.hpp"
#include "actors/provider/responses_route.hpp"
#include "actors/provider/responses_wire.hpp"
#include "tests/support/fake_openai_responses.hpp"

using namespace nb;
using json = nlohmann::json;
namespace rs = nb::test::responses;

namespace {

model_request responses_request(json messages, json tools = nullptr) {
  model_request r;
  r.messages_json = messages.dump();
  if (!tools.is_null())
    r.tools_json = tools.dump();
  r.max_tokens = 512;
  r.temperature = 0.3;
  return r;
}

json responses_body_of(const model_request& r, const std::string& model,
                       const body_options& opts = {}) {
  std::string err;
  auto text = build_responses_body(r, model, err, opts);
  REQUIRE(err.empty());
  return json::parse(text);
}

/// Splits the scripted frames as the client does and decodes them.
model_reply responses_decode(const test::fake_response& r,
                             std::vector<stream_piece>* pieces = nullptr,
                             std::string* error = nullptr) {
  responses_stream s;
  sse_splitter split;
  for (auto& frame : r.events)
    split.feed(frame, [&](std::string_view data) {
      for (auto& p : s.apply(data))
        if (pieces)
          pieces->push_back(p);
    });
  if (error)
    *error = s.error();
  model_reply out;
  if (s.error().empty()) {
    CHECK(s.finished());
    s.finish(out);
  }
  return out;
}

provider_choice openai_choice(std::string api_type = "auto",
                              std::string base = "https://api.openai.com/v1") {
  provider_choice c;
  c.name = "openai";
  c.api_base = std::move(base);
  c.model = "gpt-4o";
  c.api_type = std::move(api_type);
  return c;
}

} // namespace

TEST_CASE("responses: chat history becomes instructions and input items") {
  auto history = json::array(
    {{{"role", "system"}, {"content", "You are terse."}},
     {{"role", "user"}, {"content", "list files"}},
     {{"role", "assistant"},
      {"content", "Looking."},
      {"tool_calls",
       json::array(
         {{{"id", "call_a|fc_a"},
           {"type", "function"},
           {"function",
            {{"name", "list_dir"}, {"arguments", R"({"path":"."})"}}}},
          {{"id", "call_b"},
           {"type", "function"},
           {"function",
            {{"name", "read_file"}, {"arguments", "not json"}}}}})}},
     {{"role", "tool"}, {"tool_call_id", "call_a|fc_a"}, {"content", "a.txt"}},
     {{"role", "tool"},
      {"tool_call_id", "call_b"},
      {"content", json::array({{{"type", "text"}, {"text", "hi"}}})}},
     {{"role", "user"},
      {"content", json::array({{{"type", "text"}, {"text", "and this?"}},
                               {{"type", "image_url"},
                                {"image_url",
                                 {{"url", "data:image/png;base64,AA"}}}}})}}});
  auto body = responses_body_of(responses_request(history), "gpt-4o");
  CHECK(body["instructions"] == "You are terse.");
  auto& in = body["input"];
  REQUIRE(in.size() == 7);
  CHECK(in[0]
        == json{{"role", "user"},
                {"content", json::array({{{"type", "input_text"},
                                          {"text", "list files"}}})}});
  CHECK(in[1]["type"] == "message");
  CHECK(in[1]["role"] == "assistant");
  CHECK(in[1]["id"] == "msg_2");
  CHECK(in[1]["content"][0]
        == json{{"type", "output_text"}, {"text", "Looking."}});
  CHECK(in[2]
        == json{{"type", "function_call"},
                {"id", "fc_a"},
                {"call_id", "call_a"},
                {"name", "list_dir"},
                {"arguments", R"({"path":"."})"}});
  // No item id in ours: one is made up; arguments that are not an object
  // are replayed as {} (the API refuses anything else).
  CHECK(in[3]["call_id"] == "call_b");
  CHECK(in[3]["id"] == "fc_2");
  CHECK(in[3]["arguments"] == "{}");
  CHECK(in[4]
        == json{{"type", "function_call_output"},
                {"call_id", "call_a"},
                {"output", "a.txt"}});
  CHECK(in[5]["output"]
        == json::array({{{"type", "input_text"}, {"text", "hi"}}}));
  CHECK(in[6]["content"][1]
        == json{{"type", "input_image"},
                {"image_url", "data:image/png;base64,AA"},
                {"detail", "auto"}});
}

TEST_CASE("responses: tools are flat, reasoning and limits as the original") {
  auto tools = json::array(
    {{{"type", "function"},
      {"function",
       {{"name", "list_dir"},
        {"description", "List a directory"},
        {"parameters", {{"type", "object"}}}}}},
     {{"type", "function"}, {"function", {{"description", "nameless"}}}}});
  auto req = responses_request(
    json::array({{{"role", "user"}, {"content", "x"}}}), tools);
  req.stream = true;
  auto plain = responses_body_of(req, "gpt-4o");
  CHECK(plain["model"] == "gpt-4o");
  CHECK(plain["max_output_tokens"] == 512);
  CHECK(plain["store"] == false);
  CHECK(plain["stream"] == true);
  CHECK(plain["temperature"] == 0.3);
  CHECK_FALSE(plain.contains("reasoning"));
  CHECK_FALSE(plain.contains("include"));
  CHECK_FALSE(plain.contains("instructions"));
  CHECK(plain["tools"]
        == json::array({{{"type", "function"},
                         {"name", "list_dir"},
                         {"description", "List a directory"},
                         {"parameters", {{"type", "object"}}}}}));
  CHECK(plain["tool_choice"] == "auto");
  // A reasoning model: no temperature, encrypted reasoning asked for.
  auto gpt5 = responses_body_of(req, "gpt-5-mini");
  CHECK_FALSE(gpt5.contains("temperature"));
  CHECK(gpt5["include"] == json::array({"reasoning.encrypted_content"}));
  body_options high{"high", "",
                    R"({"include": ["x.y"], "service_tier": "flex"})"};
  auto effort = responses_body_of(req, "gpt-4o", high);
  CHECK(effort["reasoning"] == json{{"effort", "high"}});
  CHECK_FALSE(effort.contains("temperature"));
  CHECK(effort["include"]
        == json::array({"reasoning.encrypted_content", "x.y"}));
  CHECK(effort["service_tier"] == "flex");
  body_options none{"none", "", ""};
  CHECK_FALSE(responses_body_of(req, "gpt-4o", none).contains("reasoning"));
  std::string err;
  auto bad = req;
  bad.messages_json = "{}";
  CHECK(build_responses_body(bad, "gpt-4o", err).empty());
  CHECK(err.find("not a JSON array") != std::string::npos);
}

TEST_CASE("responses: a whole answer with text, reasoning and a call") {
  auto r = rs::response(
    json::array({rs::reasoning_item("rs_1", "Think first."),
                 rs::message_item("msg_1", "Here."),
                 rs::function_call_item("fc_9", "call_9", "list_dir",
                                        R"({"path":"."})")}),
    rs::usage(100, 20, 64));
  model_reply out;
  CHECK(parse_responses_body(r.body, out).empty());
  CHECK(out.content == "Here.");
  CHECK(out.reasoning_content == "Think first.");
  REQUIRE(out.tool_calls.size() == 1);
  CHECK(out.tool_calls[0].id == "call_9|fc_9");
  CHECK(out.tool_calls[0].name == "list_dir");
  CHECK(out.tool_calls[0].arguments_json == R"({"path":"."})");
  CHECK(out.finish_reason == "tool_calls");
  CHECK(out.usage.prompt_tokens == 100);
  CHECK(out.usage.completion_tokens == 20);
  CHECK(out.usage.total_tokens == 120);
  CHECK(out.usage.cached_tokens == 64);
  model_reply cut;
  CHECK(parse_responses_body(
          rs::response(json::array({rs::message_item("m", "par")}),
                       rs::usage(1, 1), "incomplete")
            .body,
          cut)
          .empty());
  CHECK(cut.finish_reason == "length");
  model_reply failed;
  CHECK(parse_responses_body(rs::error(400, "bad").body, failed)
        == "Response failed: bad");
}

TEST_CASE("responses: a streamed answer from the real event sequence") {
  std::vector<stream_piece> pieces;
  auto out = responses_decode(
    rs::stream_text({"Hel", "lo ", "there"}, rs::usage(30, 7, 12)), &pieces);
  CHECK(out.content == "Hello there");
  CHECK(out.finish_reason == "stop");
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[1].text == "lo ");
  CHECK_FALSE(pieces[1].reasoning);
  CHECK(out.usage.prompt_tokens == 30);
  CHECK(out.usage.completion_tokens == 7);
  CHECK(out.usage.cached_tokens == 12);
}

TEST_CASE("responses: streamed calls by item id, reasoning summaries") {
  std::vector<stream_piece> pieces;
  auto out = responses_decode(
    rs::stream(
      json::array({rs::reasoning_item("rs_1", "Need the list."),
                   rs::function_call_item("fc_1", "call_1", "list_dir",
                                          R"({"path":"src"})"),
                   rs::function_call_item("fc_2", "call_2", "read_file",
                                          R"({"path":"a"})")}),
      rs::usage(50, 9)),
    &pieces);
  CHECK(out.reasoning_content == "Need the list.");
  CHECK_FALSE(pieces.empty());
  CHECK(pieces[0].reasoning);
  REQUIRE(out.tool_calls.size() == 2);
  CHECK(out.tool_calls[0].id == "call_1|fc_1");
  CHECK(out.tool_calls[0].name == "list_dir");
  CHECK(out.tool_calls[0].arguments_json == R"({"path":"src"})");
  CHECK(out.tool_calls[1].id == "call_2|fc_2");
  CHECK(out.finish_reason == "tool_calls");
  CHECK(out.content.empty());
}

TEST_CASE("responses: response.failed and error events end the stream") {
  std::string error;
  responses_decode(rs::stream_failed("server_error", "The model crashed"),
                   nullptr, &error);
  CHECK(error == "Response failed: The model crashed");
  responses_stream s;
  s.apply(
    R"({"type":"error","code":"rate_limit_exceeded","message":"slow down"})");
  CHECK(s.error() == "Response failed: slow down");
  responses_stream junk;
  junk.apply("not json");
  CHECK(junk.error().find("not JSON") != std::string::npos);
}

TEST_CASE("responses: the auto rule of the original, per provider and model") {
  CHECK(responses_route(openai_choice(), "gpt-4o", "") == responses_use::never);
  CHECK(responses_route(openai_choice(), "gpt-5.1", "")
        == responses_use::preferred);
  CHECK(responses_route(openai_choice(), "o3-mini", "")
        == responses_use::preferred);
  CHECK(responses_route(openai_choice(), "gpt-4o", "low")
        == responses_use::preferred);
  CHECK(responses_route(openai_choice(), "gpt-4o", "none")
        == responses_use::never);
  // A gateway speaking OpenAI's protocol is not OpenAI.
  CHECK(responses_route(openai_choice("auto", "http://127.0.0.1:8000/v1"),
                        "gpt-5", "")
        == responses_use::never);
  CHECK(responses_route(openai_choice("chat_completions"), "gpt-5", "high")
        == responses_use::never);
  CHECK(responses_route(openai_choice("responses", "http://127.0.0.1:1/v1"),
                        "gpt-4o", "")
        == responses_use::required);
  auto other = openai_choice();
  other.name = "deepseek";
  CHECK(responses_route(other, "gpt-5", "high") == responses_use::never);
  CHECK(is_direct_openai_base("https://api.openai.com/v1"));
  CHECK(is_direct_openai_base(""));
  CHECK_FALSE(is_direct_openai_base("https://openrouter.ai/api.openai.com"));
}

TEST_CASE("responses: which failures fall back, and the breaker's timing") {
  attempt_failure refused{
    failure_kind::http_status,
    400,
    "HTTP 400: Unsupported parameter: 'max_output_tokens'",
    false,
    {}};
  CHECK(responses_refused(refused));
  auto not_found = refused;
  not_found.status = 404;
  not_found.detail = "HTTP 404: Invalid URL (POST /v1/responses)";
  CHECK(responses_refused(not_found));
  auto busy = refused;
  busy.status = 500;
  CHECK_FALSE(responses_refused(busy)); // a 5xx is retried, not a refusal
  auto other = refused;
  other.detail = "HTTP 400: context too long";
  CHECK_FALSE(responses_refused(other));
  circuit_breaker b{responses_failure_threshold, responses_probe_interval};
  auto t0 = circuit_breaker::clock::now();
  b.record("k", true, t0);
  b.record("k", true, t0);
  CHECK_FALSE(b.open("k", t0));
  b.record("k", true, t0);
  CHECK(b.open("k", t0 + std::chrono::seconds{299}));
  // After 300 s one probe goes out; a failure closes the door again.
  CHECK_FALSE(b.open("k", t0 + std::chrono::seconds{300}));
  b.record("k", true, t0 + std::chrono::seconds{300});
  CHECK(b.open("k", t0 + std::chrono::seconds{301}));
  b.record("k", false, t0 + std::chrono::seconds{601});
  CHECK_FALSE(b.open("k", t0 + std::chrono::seconds{602}));
}

TEST_CASE("responses: a hosted web search in extraBody takes our web_search's "
          "place and makes the call a Responses one") {
  auto extra = R"({"tools": [{"type": "web_search"}, {"type": "web_search_preview"}]})";
  auto c = openai_choice("auto", "https://gateway.example/v1");
  CHECK(responses_route(c, "gpt-4o", "") == responses_use::never);
  c.extra_body = extra;
  CHECK(responses_route(c, "gpt-4o", "") == responses_use::required);
  c.api_type = "chat_completions";
  CHECK(responses_route(c, "gpt-4o", "") == responses_use::never);
  CHECK_FALSE(responses_hosted_web_search(R"({"tools": [{"type": "function"}]})"));

  auto tools = json::array(
    {{{"type", "function"},
      {"function", {{"name", "web_search"}, {"parameters", json::object()}}}},
     {{"type", "function"},
      {"function", {{"name", "read_file"}, {"parameters", json::object()}}}}});
  auto r = responses_request(json::array({{{"role", "user"}, {"content", "news?"}}}),
                             tools);
  body_options opts;
  opts.extra_body = extra;
  auto body = responses_body_of(r, "gpt-4o", opts);
  // Ours without web_search, then one hosted search (the first).
  CHECK(body["tools"]
        == json::parse(R"([{"type": "function", "name": "read_file",
                            "description": "", "parameters": {}},
                           {"type": "web_search"}])"));
  CHECK(body["include"] == json::array({"web_search_call.action.sources"}));
}

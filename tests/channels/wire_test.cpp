// The API's request validation, response shapes and bearer check, without
// sockets.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "actors/channels/api/wire.hpp"
#include "actors/channels/http/http_listener.hpp"

using namespace nb;
using namespace nb::api;
using json = nlohmann::json;

namespace {

completion_request accept(const std::string& body) {
  auto r = parse_completion_request(body);
  if (auto err = std::get_if<api_error>(&r))
    FAIL("unexpected refusal: " << err->message);
  return std::get<completion_request>(r);
}

api_error refuse(const std::string& body) {
  auto r = parse_completion_request(body);
  REQUIRE(std::holds_alternative<api_error>(r));
  auto err = std::get<api_error>(r);
  CHECK(err.status == 400);
  CHECK(err.type == "invalid_request_error");
  return err;
}

bool mentions(const api_error& e, const std::string& what) {
  return e.message.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("the last user message is what gets sent") {
  auto r = accept(R"({"model":"m","stream":true,"session_id":"abc-1",
    "messages":[{"role":"system","content":"be nice"},
                {"role":"user","content":"first"},
                {"role":"assistant","content":"ok"},
                {"role":"user","content":"second"}]})");
  CHECK(r.content == "second");
  CHECK(r.model == "m");
  CHECK(r.stream);
  CHECK(r.chat_id == "abc-1");
  auto d = accept(R"({"messages":[{"role":"user","content":"hi"}]})");
  CHECK(d.chat_id == "default");
  CHECK_FALSE(d.stream);
  CHECK(d.model.empty());
}

TEST_CASE("text content parts are joined with spaces") {
  auto r = accept(R"({"messages":[{"role":"user","content":[
    {"type":"text","text":"hello"},{"type":"text","text":"world"}]}]})");
  CHECK(r.content == "hello world");
}

TEST_CASE("bad bodies are refused naming the problem") {
  CHECK(mentions(refuse("{not json"), "not valid JSON"));
  CHECK(mentions(refuse("[1,2]"), "JSON object"));
  CHECK(mentions(refuse("{}"), "\"messages\" is required"));
  CHECK(mentions(refuse(R"({"messages":[]})"), "non-empty array"));
  CHECK(mentions(refuse(R"({"messages":"hi"})"), "non-empty array"));
  CHECK(mentions(refuse(R"({"messages":[{"content":"x"}]})"), "\"role\""));
  CHECK(mentions(refuse(R"({"messages":[{"role":"system","content":"x"}]})"),
                 "no message with role \"user\""));
  CHECK(mentions(refuse(R"({"messages":[{"role":"user","content":42}]})"),
                 "must be a string or a list"));
  CHECK(mentions(refuse(R"({"messages":[{"role":"user"}]})"),
                 "no \"content\""));
  CHECK(mentions(refuse(R"({"messages":[{"role":"user","content":"  "}]})"),
                 "empty"));
  CHECK(mentions(refuse(R"({"messages":[{"role":"user","content":[
    {"type":"image_url","image_url":{"url":"http://x/a.png"}}]}]})"),
                 "\"text\""));
  CHECK(mentions(refuse(R"({"stream":"yes",
    "messages":[{"role":"user","content":"x"}]})"), "\"stream\""));
  CHECK(mentions(refuse(R"({"model":5,
    "messages":[{"role":"user","content":"x"}]})"), "\"model\""));
  CHECK(mentions(refuse(R"({"session_id":"a/../b",
    "messages":[{"role":"user","content":"x"}]})"), "\"session_id\""));
  CHECK(mentions(refuse(R"({"session_id":7,
    "messages":[{"role":"user","content":"x"}]})"), "\"session_id\""));
}

TEST_CASE("response bodies have the OpenAI shape") {
  auto id = new_completion_id();
  CHECK(id.rfind("chatcmpl-", 0) == 0);
  CHECK(id.size() == 9 + 12);
  CHECK(new_completion_id() != id);
  auto c = json::parse(completion_body(id, 99, "m", "hi", {1, 2, 3, 0, false}));
  CHECK(c["object"] == "chat.completion");
  CHECK(c["created"] == 99);
  CHECK(c["choices"][0]["message"]["role"] == "assistant");
  CHECK(c["choices"][0]["message"]["content"] == "hi");
  CHECK(c["choices"][0]["finish_reason"] == "stop");
  CHECK(c["usage"]["total_tokens"] == 3);
  auto frame = content_frame(id, 99, "m", "piece");
  REQUIRE(frame.rfind("data: ", 0) == 0);
  REQUIRE(frame.size() > 8);
  CHECK(frame.substr(frame.size() - 2) == "\n\n");
  auto chunk = json::parse(frame.substr(6));
  CHECK(chunk["object"] == "chat.completion.chunk");
  CHECK(chunk["choices"][0]["delta"]["content"] == "piece");
  CHECK(chunk["choices"][0]["finish_reason"].is_null());
  auto stop = json::parse(stop_frame(id, 99, "m").substr(6));
  CHECK(stop["choices"][0]["finish_reason"] == "stop");
  CHECK(stop["choices"][0]["delta"].empty());
  auto e = json::parse(error_body({401, "nope", "authentication_error"}));
  CHECK(e["error"]["message"] == "nope");
  CHECK(e["error"]["type"] == "authentication_error");
  CHECK(e["error"]["code"] == 401);
  CHECK(comment_frame("a\nb") == ": a b\n\n");
  auto models = json::parse(models_body({"gpt-x"}));
  CHECK(models["object"] == "list");
  CHECK(models["data"][0]["id"] == "gpt-x");
  CHECK(models["data"][0]["owned_by"] == "nanobot");
}

TEST_CASE("usage comes from the reply metadata when present") {
  CHECK(usage_from_metadata(R"({"usage":{"prompt_tokens":4,
    "completion_tokens":1,"total_tokens":5}})").total_tokens == 5);
  CHECK(usage_from_metadata("{}").total_tokens == 0);
  CHECK(usage_from_metadata("not json").total_tokens == 0);
}

TEST_CASE("the bearer check wants the exact key") {
  CHECK(bearer_matches("Bearer sekret", "sekret"));
  CHECK(bearer_matches("bearer  sekret ", "sekret"));
  CHECK_FALSE(bearer_matches("Bearer sekre", "sekret"));
  CHECK_FALSE(bearer_matches("Bearer sekrets", "sekret"));
  CHECK_FALSE(bearer_matches("Bearer sekreT", "sekret"));
  CHECK_FALSE(bearer_matches("Basic sekret", "sekret"));
  CHECK_FALSE(bearer_matches("sekret", "sekret"));
  CHECK_FALSE(bearer_matches("Bearer ", ""));
}

TEST_CASE("loopback hosts are recognised") {
  CHECK(is_loopback_host("127.0.0.1"));
  CHECK(is_loopback_host("127.1.2.3"));
  CHECK(is_loopback_host("localhost"));
  CHECK(is_loopback_host("::1"));
  CHECK(is_loopback_host("[::1]"));
  CHECK_FALSE(is_loopback_host("0.0.0.0"));
  CHECK_FALSE(is_loopback_host("::"));
  CHECK_FALSE(is_loopback_host("192.168.1.4"));
  CHECK_FALSE(is_loopback_host("example.com"));
  CHECK_FALSE(is_loopback_host(""));
}

TEST_CASE("a completion body is the bytes its JSON tree gave, bad UTF-8 replaced") {
  // What completion_body wrote before it was written as text.
  auto as_tree = [](const std::string& id, int64_t created,
                    const std::string& model, const std::string& content,
                    const token_usage& u) {
    return json{{"id", id},
                {"object", "chat.completion"},
                {"created", created},
                {"model", model},
                {"choices",
                 json::array({{{"index", 0},
                               {"message", {{"role", "assistant"},
                                            {"content", content}}},
                               {"finish_reason", "stop"}}})},
                {"usage", {{"prompt_tokens", u.prompt_tokens},
                           {"completion_tokens", u.completion_tokens},
                           {"total_tokens", u.total_tokens}}}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
  };
  for (std::string content :
       {std::string{"hi"}, std::string{""}, std::string{"a \"quoted\"\n\ttab \\ "},
        std::string{"caf\xc3\xa9 \xff\xfe broken"}, std::string{"\x01\x1f ctl"}}) {
    CAPTURE(content);
    CHECK(completion_body("chatcmpl-1", -5, "m\"x", content, {7, 0, -1, 3, true})
          == as_tree("chatcmpl-1", -5, "m\"x", content, {7, 0, -1, 3, true}));
  }
}

TEST_CASE("usage is read from the metadata's top-level usage object only") {
  auto total = [](const char* meta) {
    return usage_from_metadata(meta).total_tokens;
  };
  auto u = usage_from_metadata(R"({"streamed":false,"stop_reason":"done",
    "usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5,
    "cached_tokens":2,"context_tokens":4},"context_window_tokens":65536})");
  CHECK(u.prompt_tokens == 4);
  CHECK(u.completion_tokens == 1);
  CHECK(u.total_tokens == 5);
  CHECK(u.cached_tokens == 0); // the API's usage has three figures
  CHECK(total(R"({"usage":{"total_tokens":1.5}})") == 0);
  CHECK(total(R"({"usage":{"total_tokens":"5"}})") == 0);
  CHECK(total(R"({"usage":[{"total_tokens":5}]})") == 0);
  CHECK(total(R"({"usage":5})") == 0);
  CHECK(total(R"({"goal":{"usage":{"total_tokens":5}}})") == 0);
  CHECK(total(R"({"usage":{"deeper":{"total_tokens":5}}})") == 0);
  CHECK(total(R"({"usage":{"total_tokens":5},"x":{"total_tokens":9}})") == 5);
  CHECK(total(R"({"usage":{"total_tokens":5}} trailing)") == 0);
  CHECK(total(R"({"usage":{"total_tokens":5})") == 0);
  CHECK(total(R"([{"usage":{"total_tokens":5}}])") == 0);
  CHECK(total(R"({"usage":{"total_tokens":18446744073709551615}})") == -1);
}

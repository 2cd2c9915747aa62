// model_client speaking Anthropic's Messages API to the scripted server over
// real sockets: headers and path, whole and streamed answers, retries on
// 429/529 and overloaded events, the idle timeout counting every event.
#include <doctest/doctest.h>

#include "tests/provider/client_fixture.hpp"
#include "tests/support/fake_anthropic.hpp"

using namespace nb;
using namespace nb::test;
namespace an = nb::test::anthropic;

namespace {

provider_choice anthropic_choice(const fake_llm& llm) {
  auto c = choice_for(llm);
  c.name = "anthropic";
  c.api = wire_api::anthropic;
  c.model = "claude-sonnet-4-5";
  return c;
}

/// A streamed text answer with `pings` ping events between its deltas.
fake_response with_pings(int pings) {
  auto s = an::stream_text({"slow ", "but ", "steady"});
  std::vector<std::string> events;
  for (auto& e : s.events) {
    events.push_back(e);
    if (e.find("content_block_delta") != std::string::npos)
      for (int i = 0; i < pings; ++i)
        events.push_back(an::event({{"type", "ping"}}));
  }
  s.events = std::move(events);
  return s;
}

} // namespace

TEST_CASE("anthropic: a whole answer over the Messages endpoint") {
  fake_llm llm;
  llm.push(an::text("Bonjour."));
  model_client client{anthropic_choice(llm), fast()};
  auto r = client.chat(ask("say hello in French"), {});
  CHECK(r.error.empty());
  CHECK(r.content == "Bonjour.");
  CHECK(r.finish_reason == "stop");
  CHECK(r.usage.prompt_tokens == 12);
  auto req = llm.requests().at(0);
  CHECK(req.path == "/v1/messages");
  CHECK(req.headers["x-api-key"] == secret);
  CHECK(req.headers["anthropic-version"] == "2023-06-01");
  CHECK(req.headers.count("authorization") == 0);
  CHECK(req.headers["x-extra"] == "yes");
  CHECK(req.body["model"] == "claude-sonnet-4-5");
  CHECK(req.body["messages"][0]["content"][0]["text"] == "say hello in French");
}

TEST_CASE("anthropic: a base without /v1 gets the versioned path") {
  fake_llm llm;
  auto c = anthropic_choice(llm);
  c.api_base = "http://127.0.0.1:" + std::to_string(llm.port());
  model_client client{c, fast()};
  auto r = client.chat(ask("ping"), {});
  CHECK(r.content == "echo: ping");
  CHECK(llm.requests().at(0).path == "/v1/messages");
}

TEST_CASE("anthropic: streamed text arrives as deltas") {
  fake_llm llm;
  llm.push(an::stream_text({"The ", "quick ", "fox"}, an::usage(7, 3, 2)));
  model_client client{anthropic_choice(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("go", true), rec.cb());
  CHECK(r.error.empty());
  CHECK(rec.deltas == std::vector<std::string>{"The ", "quick ", "fox"});
  CHECK(r.content == "The quick fox");
  CHECK(r.usage.prompt_tokens == 9);
  CHECK(r.usage.cached_tokens == 2);
  CHECK(r.usage.completion_tokens == 3);
  CHECK(llm.requests().at(0).body["stream"] == true);
}

TEST_CASE("anthropic: streamed tool calls thinking and signatures") {
  fake_llm llm;
  llm.push(an::stream(
    json::array({an::thinking_block("I should list it.", "sig-1"),
                 an::tool_use_block("toolu_a", "list_dir", {{"path", "."}}),
                 an::tool_use_block("toolu_b", "read_file",
                                    {{"path", "notes/a b.md"}})}),
    "tool_use"));
  model_client client{anthropic_choice(llm), fast()};
  std::vector<std::pair<std::string, bool>> seen;
  callbacks cb;
  cb.on_delta = [&](std::string t, bool reasoning) {
    seen.emplace_back(std::move(t), reasoning);
  };
  auto r = client.chat(ask("look", true), cb);
  CHECK(r.error.empty());
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 2);
  CHECK(r.tool_calls[1].id == "toolu_b");
  CHECK(json::parse(r.tool_calls[1].arguments_json)
        == json{{"path", "notes/a b.md"}});
  for (auto& [text, reasoning] : seen)
    CHECK(reasoning);
  CHECK(r.reasoning_content == "I should list it.");
  CHECK(json::parse(r.thinking_blocks_json)[0]["signature"] == "sig-1");
}

TEST_CASE("anthropic: 529 overloaded and 429 are retried with Retry-After") {
  fake_llm llm;
  llm.push(an::error(529, "overloaded_error", "Overloaded"));
  llm.push(an::error(429, "rate_limit_error", "Number of requests exceeded", 1));
  llm.push(an::text("finally"));
  model_client client{anthropic_choice(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("x"), rec.cb());
  CHECK(r.error.empty());
  CHECK(r.content == "finally");
  CHECK(r.attempts == 3);
  REQUIRE(rec.notices.size() == 2);
  CHECK(rec.notices[1].find("retry in 1s") != std::string::npos);
}

TEST_CASE("anthropic: an overloaded error event before any text is retried") {
  fake_llm llm;
  auto broken = an::stream_text({"never"});
  broken.events.resize(1); // message_start only
  broken.events.push_back(an::event(
    {{"type", "error"},
     {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}));
  llm.push(broken);
  llm.push(an::stream_text({"ok"}));
  model_client client{anthropic_choice(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("x", true), rec.cb());
  CHECK(r.error.empty());
  CHECK(r.content == "ok");
  CHECK(r.attempts == 2);
}

TEST_CASE("anthropic: invalid requests are not retried and read clearly") {
  fake_llm llm;
  llm.push(an::error(400, "invalid_request_error",
                     "messages.1: tool_use ids must be unique"));
  model_client client{anthropic_choice(llm), fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("HTTP 400") != std::string::npos);
  CHECK(r.error.find("tool_use ids must be unique") != std::string::npos);
  CHECK(r.attempts == 1);
  CHECK(r.error.find(secret) == std::string::npos);
}

TEST_CASE("anthropic: ping events keep a slow stream alive") {
  fake_llm llm;
  auto s = with_pings(4);
  s.event_delay = milliseconds{60};
  llm.push(s);
  auto o = fast();
  o.stream_idle_timeout = milliseconds{400};
  model_client client{anthropic_choice(llm), o};
  auto r = client.chat(ask("x", true), {});
  // Fifteen-odd gaps of 60 ms outlast the 400 ms idle window many times
  // over; only the ping events keep the stream alive.
  CHECK(r.error.empty());
  CHECK(r.content == "slow but steady");
  CHECK(r.attempts == 1);
}

TEST_CASE("anthropic: a silent stream times out") {
  fake_llm llm;
  for (int i = 0; i < 4; ++i) {
    auto s = an::stream_text({"Hel", "lo"});
    s.events.resize(3); // message_start, block start, "Hel"
    s.stall = true;
    llm.push(s);
  }
  auto o = fast();
  o.stream_idle_timeout = milliseconds{200};
  o.retry_delays = {milliseconds{10}};
  model_client client{anthropic_choice(llm), o};
  recorder rec;
  auto r = client.chat(ask("x", true), rec.cb());
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("timed out") != std::string::npos);
  CHECK(rec.deltas.front() == "Hel");
}

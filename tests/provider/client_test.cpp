// model_client against the scripted fake over real sockets: answers,
// retries, wall-clock timeouts and hostile responses.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/provider/client_fixture.hpp"

using namespace nb;
using namespace nb::test;



TEST_CASE("a non-streamed answer comes back with usage and headers sent") {
  fake_llm llm;
  llm.push(text("hello there", usage(12, 3)));
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("hi"), {});
  CHECK(r.error.empty());
  CHECK(r.content == "hello there");
  CHECK(r.finish_reason == "stop");
  CHECK(r.usage.prompt_tokens == 12);
  CHECK(r.usage.total_tokens == 15);
  CHECK(r.attempts == 1);
  CHECK(r.http_status == 200);
  CHECK(r.latency_us > 0);
  auto req = llm.requests().at(0);
  CHECK(req.path == "/v1/chat/completions");
  CHECK(req.headers.at("authorization") == std::string{"Bearer "} + secret);
  CHECK(req.headers.at("x-extra") == "yes");
  CHECK(req.body["model"] == "fake-model");
  CHECK(req.body["messages"][0]["content"] == "hi");
  CHECK(req.body["max_tokens"] == 64);
  CHECK_FALSE(req.body.contains("stream"));
}

TEST_CASE("calls reuse one keep-alive connection") {
  fake_llm llm;
  model_client client{choice_for(llm), fast()};
  CHECK(client.chat(ask("one"), {}).content == "echo: one");
  CHECK(client.chat(ask("two"), {}).content == "echo: two");
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].remote_port == reqs[1].remote_port);
}

TEST_CASE("429 with Retry-After is honoured and then succeeds") {
  fake_llm llm;
  llm.push(error(429, "Rate limit reached", 1));
  llm.push(text("after the wait"));
  model_client client{choice_for(llm), fast()};
  recorder rec;
  auto start = std::chrono::steady_clock::now();
  auto r = client.chat(ask("hi"), rec.cb());
  auto waited = std::chrono::steady_clock::now() - start;
  CHECK(r.content == "after the wait");
  CHECK(r.attempts == 2);
  CHECK(waited >= milliseconds{1000});
  REQUIRE(rec.notices.size() == 1);
  CHECK(rec.notices[0] == "Model request failed, retry in 1s (attempt 1).");
}

TEST_CASE("retry-after-ms is honoured") {
  fake_llm llm;
  auto e = error(503, "busy");
  e.headers["retry-after-ms"] = "300";
  llm.push(e);
  model_client client{choice_for(llm), fast()};
  auto start = std::chrono::steady_clock::now();
  auto r = client.chat(ask("hi"), {});
  CHECK(r.content == "echo: hi");
  CHECK(std::chrono::steady_clock::now() - start >= milliseconds{300});
}

TEST_CASE("500 twice then success takes three attempts") {
  fake_llm llm;
  llm.push(error(500));
  llm.push(error(502));
  model_client client{choice_for(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("x"), rec.cb());
  CHECK(r.content == "echo: x");
  CHECK(r.attempts == 3);
  CHECK(rec.notices.size() == 2);
  CHECK(rec.notices[1].find("(attempt 2)") != std::string::npos);
}

TEST_CASE("exhausted retries give a clear error") {
  fake_llm llm;
  llm.set_responder([](const json&) { return error(500, "upstream exploded"); });
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error == "Model request failed after 4 attempts: HTTP 500: "
                   "upstream exploded");
  CHECK(r.attempts == 4);
  CHECK(r.http_status == 500);
  CHECK(llm.request_count() == 4);
}

TEST_CASE("401 is not retried and the error hides the key") {
  fake_llm llm;
  llm.push(error(401, std::string{"Incorrect API key provided: "} + secret
                        + " (sk-test-****cdef)"));
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("HTTP 401") != std::string::npos);
  CHECK(r.error.find(secret) == std::string::npos);
  CHECK(r.error.find("cdef") == std::string::npos);
  CHECK(r.error.find("Bearer") == std::string::npos);
  CHECK(llm.request_count() == 1);
}

TEST_CASE("a quota 429 is not retried") {
  fake_llm llm;
  auto e = error(429, "You exceeded your current quota");
  llm.push(e);
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("quota") != std::string::npos);
  CHECK(llm.request_count() == 1);
}

TEST_CASE("the wall clock ends a slow non-streamed call") {
  fake_llm llm;
  auto slow = text("late");
  slow.delay = milliseconds{1500};
  llm.push(slow);
  auto o = fast();
  o.call_timeout = milliseconds{300};
  model_client client{choice_for(llm), o};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error.starts_with("Error calling LLM: timed out after"));
}

TEST_CASE("malformed tool calls come back without crashing") {
  fake_llm llm;
  llm.push(tool_calls({call("c1", nullptr, json{{"a", 1}}),
                       call("c2", "", "{}"), call("c3", 42, "{}"),
                       call("c4", "read_file", "{\"path\": ")}));
  llm.push(stream_tool_calls({call("s1", nullptr, "{\"x\":"),
                              call("s2", "grep", "not json at all")}));
  model_client client{choice_for(llm), fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.error.empty());
  REQUIRE(r.tool_calls.size() == 4);
  CHECK(r.tool_calls[0].name.empty());
  CHECK(r.tool_calls[1].name.empty());
  CHECK(r.tool_calls[2].name.empty());
  CHECK(r.tool_calls[3].name == "read_file");
  CHECK(r.tool_calls[3].arguments_json == "{\"path\": ");
  auto s = client.chat(ask("x", true), {});
  CHECK(s.error.empty());
  REQUIRE(s.tool_calls.size() == 2);
  CHECK(s.tool_calls[0].name.empty());
  CHECK(s.tool_calls[0].arguments_json == "{\"x\":");
  CHECK(s.tool_calls[1].arguments_json == "not json at all");
}

TEST_CASE("HTML and empty choices on 200 are errors without retries") {
  fake_llm llm;
  llm.push(raw(200, "text/html", "<html><h1>Cloudflare</h1></html>"));
  llm.push(raw(200, "application/json", R"({"choices":[]})"));
  llm.push(raw(200, "application/json", R"({"choices":[{"message":{"con)"));
  model_client client{choice_for(llm), fast()};
  auto html = client.chat(ask("x"), {});
  CHECK(html.finish_reason == "error");
  CHECK(html.error.find("not a JSON completion") != std::string::npos);
  auto empty = client.chat(ask("x"), {});
  CHECK(empty.error.find("no choices") != std::string::npos);
  auto cut = client.chat(ask("x"), {});
  CHECK(cut.finish_reason == "error");
  CHECK(llm.request_count() == 3);
}

TEST_CASE("an oversized response is refused") {
  fake_llm llm;
  llm.push(text(std::string(8192, 'x')));
  auto o = fast();
  o.max_response_bytes = 2048;
  model_client client{choice_for(llm), o};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("exceeded") != std::string::npos);
}

TEST_CASE("a refused connection is retried then reported") {
  int port = 0;
  {
    fake_llm gone;
    port = gone.port();
  }
  provider_choice c;
  c.name = "custom";
  c.api_base = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  c.model = "m";
  model_client client{c, fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.attempts == 4);
  CHECK(r.error.find("could not connect") != std::string::npos);
}

TEST_CASE("an unusable choice fails without a request") {
  provider_choice c;
  c.problem = "No LLM provider is configured.";
  model_client client{c, fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error == c.problem);
  CHECK(r.attempts == 0);
}

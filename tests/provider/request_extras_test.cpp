// What a provider's settings add to a request: reasoningEffort with each
// thinking style, Anthropic's extended thinking, extraBody merged last,
// extraQuery on the URL, the HTTP proxy and a SOCKS5 one — checked on the
// bodies the wire formats build and on what reaches the scripted server.
#include <doctest/doctest.h>

#include "actors/provider/anthropic_wire.hpp"
#include "actors/provider/openai_wire.hpp"
#include "actors/provider/request_extras.hpp"
#include "tests/provider/client_fixture.hpp"
#include "tests/support/fake_socks5.hpp"
#include "tests/support/forward_proxy.hpp"

using namespace nb;
using namespace nb::test;

namespace {

json openai_body(const model_request& rq, const std::string& model,
                 const body_options& opts) {
  std::string err;
  auto text = build_chat_body(rq, model, err, opts);
  REQUIRE(err.empty());
  return json::parse(text);
}

json anthropic_body(const model_request& rq, const std::string& model,
                    const body_options& opts) {
  std::string err;
  auto text = build_anthropic_body(rq, model, err, opts);
  REQUIRE(err.empty());
  return json::parse(text);
}

model_request with_tool() {
  auto rq = ask("hi");
  rq.tools_json =
    json::array({{{"type", "function"}, {"function", {{"name", "read_file"}}}}})
      .dump();
  return rq;
}

} // namespace

TEST_CASE("no reasoningEffort leaves the endpoint's defaults alone") {
  auto b = openai_body(ask("hi"), "m", {"", "thinking_type", ""});
  CHECK_FALSE(b.contains("reasoning_effort"));
  CHECK_FALSE(b.contains("thinking"));
  CHECK(b["temperature"] == 0.2);
}

TEST_CASE("reasoningEffort goes out with each thinking style") {
  auto plain = openai_body(ask("hi"), "m", {"high", "", ""});
  CHECK(plain["reasoning_effort"] == "high");
  CHECK_FALSE(plain.contains("temperature")); // reasoning rejects one
  auto typed = openai_body(ask("hi"), "m", {"low", "thinking_type", ""});
  CHECK(typed["thinking"] == json{{"type", "enabled"}});
  auto off = openai_body(ask("hi"), "m", {"none", "thinking_type", ""});
  CHECK(off["thinking"] == json{{"type", "disabled"}});
  CHECK_FALSE(off.contains("reasoning_effort"));
  CHECK(off["temperature"] == 0.2);
  auto qwen = openai_body(ask("hi"), "m", {"medium", "enable_thinking", ""});
  CHECK(qwen["enable_thinking"] == true);
  auto minimal =
    openai_body(ask("hi"), "m", {"minimal", "enable_thinking", ""});
  CHECK(minimal["enable_thinking"] == false);
  auto split = openai_body(ask("hi"), "m", {"high", "reasoning_split", ""});
  CHECK(split["reasoning_split"] == true);
}

TEST_CASE("extraBody is merged last, key by key, and its tools are added") {
  body_options opts;
  opts.extra_body = json{{"top_p", 0.5},
                         {"temperature", 0.9},
                         {"stream_options", {{"extra", true}}},
                         {"tools", json::array({{{"type", "web_search"}}})}}
                      .dump();
  auto rq = with_tool();
  rq.stream = true;
  auto b = openai_body(rq, "m", opts);
  CHECK(b["top_p"] == 0.5);
  CHECK(b["temperature"] == 0.9);
  CHECK(b["stream_options"]["include_usage"] == true); // ours kept
  CHECK(b["stream_options"]["extra"] == true);
  REQUIRE(b["tools"].size() == 2);
  CHECK(b["tools"][0]["function"]["name"] == "read_file");
  CHECK(b["tools"][1]["type"] == "web_search");
}

TEST_CASE(
  "Anthropic thinking: a budget, adaptive, and off where it is on by default") {
  auto rq = with_tool();
  rq.max_tokens = 2000;
  auto budget = anthropic_body(rq, "claude-sonnet-4-5", {"low", "", ""});
  CHECK(budget["thinking"]
        == json{{"type", "enabled"}, {"budget_tokens", 1024}});
  CHECK(budget["max_tokens"] == 1024 + 4096);
  CHECK(budget["temperature"] == 1.0);
  CHECK(budget["tool_choice"] == json{{"type", "auto"}});
  auto high = anthropic_body(rq, "claude-sonnet-4-5", {"high", "", ""});
  CHECK(high["thinking"]["budget_tokens"] == 8192);
  auto adaptive = anthropic_body(rq, "claude-sonnet-4-5", {"adaptive", "", ""});
  CHECK(adaptive["thinking"] == json{{"type", "adaptive"}});
  auto newest = anthropic_body(rq, "claude-opus-4-7", {"high", "", ""});
  CHECK(newest["thinking"] == json{{"type", "adaptive"}});
  CHECK(newest["output_config"] == json{{"effort", "high"}});
  CHECK_FALSE(newest.contains("temperature"));
  auto off_old = anthropic_body(rq, "claude-sonnet-4-5", {"none", "", ""});
  CHECK_FALSE(off_old.contains("thinking"));
  auto off_new = anthropic_body(rq, "claude-opus-5", {"none", "", ""});
  CHECK(off_new["thinking"] == json{{"type", "disabled"}});
}

TEST_CASE("extraQuery is percent-encoded onto the path") {
  CHECK(with_query("/v1/chat/completions", {}) == "/v1/chat/completions");
  CHECK(with_query("/v1/x", {{"api-version", "2024-06-01"}, {"k", "a b&c"}})
        == "/v1/x?api-version=2024-06-01&k=a%20b%26c");
  CHECK(with_query("/v1/x?a=1", {{"b", "2"}}) == "/v1/x?a=1&b=2");
}

TEST_CASE(
  "a call goes through the HTTP proxy with its credentials, extras and query") {
  fake_llm llm;
  llm.push(text("via proxy"));
  forward_proxy proxy;
  auto c = choice_for(llm);
  c.proxy = "http://ann:s3cret@127.0.0.1:" + std::to_string(proxy.port());
  c.query = {{"api-version", "2024-06-01"}};
  c.extra_body = json{{"seed", 7}}.dump();
  c.thinking_style = "enable_thinking";
  model_client client{c, fast()};
  auto rq = ask("hi");
  rq.reasoning_effort = "high";
  auto r = client.chat(rq, {});
  CHECK(r.error.empty());
  CHECK(r.content == "via proxy");
  auto seen = proxy.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].target
        == llm.base_url() + "/chat/completions?api-version=2024-06-01");
  CHECK(seen[0].proxy_authorization == "Basic YW5uOnMzY3JldA==");
  auto got = llm.requests().at(0);
  CHECK(got.body["seed"] == 7);
  CHECK(got.body["reasoning_effort"] == "high");
  CHECK(got.body["enable_thinking"] == true);
  CHECK(got.headers.count("proxy-authorization") == 0);
}

TEST_CASE("a call goes through a SOCKS5 proxy with its login, and the proxy "
          "resolves the endpoint's name") {
  fake_llm llm;
  llm.push(text("via socks"));
  fake_socks5 socks{"ann", "s3cret"};
  socks.know("llm.test"); // a name only the proxy can resolve
  auto c = choice_for(llm);
  c.api_base = "http://llm.test:" + std::to_string(llm.port()) + "/v1";
  c.proxy = "socks5://ann:s3cret@127.0.0.1:" + std::to_string(socks.port());
  model_client client{c, fast()};
  auto r = client.chat(ask("hi"), {});
  CHECK_MESSAGE(r.error.empty(), r.error);
  CHECK(r.content == "via socks");
  auto seen = socks.requests();
  REQUIRE(seen.size() >= 1);
  CHECK(seen[0].host == "llm.test");
  CHECK(seen[0].port == llm.port());
  CHECK(seen[0].user == "ann");
  CHECK(llm.requests().size() == 1);
}

TEST_CASE("a SOCKS5 proxy that refuses the login stops the call with the "
          "reason, and nothing reaches the endpoint") {
  fake_llm llm;
  llm.push(text("never"));
  fake_socks5 socks{"ann", "s3cret"};
  socks.know("127.0.0.1");
  auto c = choice_for(llm);
  c.proxy = "socks5://ann:wrong@127.0.0.1:" + std::to_string(socks.port());
  model_client client{c, fast()};
  auto r = client.chat(ask("hi"), {});
  CHECK_FALSE(r.error.empty());
  CHECK(r.error.find("refused the user and password") != std::string::npos);
  CHECK(r.error.find("wrong") == std::string::npos); // no password shown
  CHECK(llm.requests().empty());
}

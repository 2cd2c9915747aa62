// The Responses API over real sockets: model_client against the scripted
// server, and the provider actor's choice between Responses and Chat
// Completions (providers.openai.apiType, the auto rule on the direct
// OpenAI base, the breaker after three refusals). "api.openai.com" is
// reached through a local forward proxy that sends every target to the
// fake, so the auto rule sees the real base.
#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include <caf/all.hpp>

#include "tests/provider/provider_gateway.hpp"
#include "tests/support/fake_openai_responses.hpp"
#include "tests/support/forward_proxy.hpp"

using namespace nb;
using namespace nb::test;
namespace rs = nb::test::responses;

namespace {

provider_choice responses_choice(const fake_llm& llm) {
  auto c = choice_for(llm);
  c.name = "openai";
  c.api = wire_api::openai_responses;
  c.model = "gpt-5";
  return c;
}

/// A provider actor for providers.openai at "api.openai.com" (through the
/// proxy to the fake), with `api_type`.
struct openai_gateway : provider_gateway {
  forward_proxy proxy;

  explicit openai_gateway(std::string api_type = "auto",
                          std::string base = "http://api.openai.com/v1") {
    proxy.route_all_to("127.0.0.1", llm.port());
    settings s;
    s.agent.model = "gpt-4o";
    s.agent.provider = "openai";
    auto& p = s.providers["openai"];
    p.api_key = secret;
    p.api_base = base == "fake" ? llm.base_url() : base;
    p.api_type = std::move(api_type);
    p.proxy = proxy.url();
    s.gateway.provider_workers = 2;
    start(s);
  }

  model_reply ask_model(const std::string& model, std::string effort = "",
                        bool stream = true, int64_t context_window = 0) {
    auto rq = ask("hello", stream);
    rq.context_window_tokens = context_window;
    rq.model = model;
    rq.provider = "openai";
    rq.reasoning_effort = std::move(effort);
    return send(std::move(rq));
  }
};

} // namespace

TEST_CASE("responses client: a streamed answer over POST /v1/responses") {
  fake_llm llm;
  llm.push(rs::stream_text({"Bon", "jour."}, rs::usage(40, 6, 32)));
  model_client client{responses_choice(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("say hello in French", true), rec.cb());
  CHECK(r.error.empty());
  CHECK(r.content == "Bonjour.");
  CHECK(r.finish_reason == "stop");
  CHECK(rec.deltas == std::vector<std::string>{"Bon", "jour."});
  CHECK(r.usage.prompt_tokens == 40);
  CHECK(r.usage.completion_tokens == 6);
  CHECK(r.usage.cached_tokens == 32);
  auto req = llm.requests().at(0);
  CHECK(req.path == "/v1/responses");
  CHECK(req.headers["authorization"] == std::string{"Bearer "} + secret);
  CHECK(req.body["model"] == "gpt-5");
  CHECK(req.body["stream"] == true);
  CHECK(req.body["max_output_tokens"] == 64);
  CHECK(req.body["input"][0]["content"][0]["text"] == "say hello in French");
  CHECK_FALSE(req.body.contains("messages"));
}

TEST_CASE("responses client: a whole answer, and response.failed is an error") {
  fake_llm llm;
  llm.push(rs::response(json::array({rs::message_item("m1", "whole")})));
  model_client client{responses_choice(llm), fast()};
  auto whole = client.chat(ask("hi"), {});
  CHECK(whole.content == "whole");
  llm.push(rs::stream_failed("server_error", "The model crashed"));
  auto failed = client.chat(ask("hi", true), {});
  CHECK(failed.finish_reason == "error");
  CHECK(failed.error.find("Response failed: The model crashed")
        != std::string::npos);
}

TEST_CASE("responses provider: auto picks the API per model and effort") {
  openai_gateway gw;
  auto plain = gw.ask_model("gpt-4o");
  CHECK(plain.content == "echo: hello");
  CHECK(gw.last_path() == "/v1/chat/completions");
  auto five = gw.ask_model("gpt-5-mini");
  CHECK(five.content == "echo: hello");
  CHECK(gw.last_path() == "/v1/responses");
  CHECK(gw.llm.requests().back().body["include"]
        == json::array({"reasoning.encrypted_content"}));
  auto o3 = gw.ask_model("o3");
  CHECK(gw.last_path() == "/v1/responses");
  auto thinking = gw.ask_model("gpt-4o", "high");
  CHECK(thinking.content == "echo: hello");
  CHECK(gw.last_path() == "/v1/responses");
  CHECK(gw.llm.requests().back().body["reasoning"]["effort"] == "high");
  // Every call went to api.openai.com, through the proxy.
  auto via = gw.proxy.requests();
  CHECK(via.size() == gw.llm.request_count());
  for (auto& r : via)
    CHECK_MESSAGE(r.target.rfind("http://api.openai.com", 0) == 0, r.target);
}

TEST_CASE("responses provider: apiType chat_completions and responses win") {
  openai_gateway chat{"chat_completions"};
  chat.ask_model("gpt-5", "high");
  CHECK(chat.last_path() == "/v1/chat/completions");
  // "responses" holds on any base, and a failure is shown, not hidden.
  openai_gateway always{"responses", "fake"};
  auto r = always.ask_model("gpt-4o");
  CHECK(r.content == "echo: hello");
  CHECK(always.last_path() == "/v1/responses");
  always.llm.push(rs::error(400, "Unsupported parameter: 'max_output_tokens'",
                            "max_output_tokens"));
  auto refused = always.ask_model("gpt-4o");
  CHECK(refused.finish_reason == "error");
  CHECK(refused.error.find("max_output_tokens") != std::string::npos);
  CHECK(always.last_path() == "/v1/responses");
}

TEST_CASE("responses provider: three refusals open the breaker") {
  openai_gateway gw;
  for (int i = 0; i < 3; ++i) {
    gw.llm.push(rs::error(400, "Unsupported parameter: 'max_output_tokens'",
                          "max_output_tokens"));
    // The same call falls back to Chat Completions and is answered.
    auto r = gw.ask_model("gpt-5");
    CHECK(r.content == "echo: hello");
    CHECK(r.finish_reason == "stop");
    auto reqs = gw.llm.requests();
    REQUIRE(reqs.size() == static_cast<size_t>(2 * (i + 1)));
    CHECK(reqs[reqs.size() - 2].path == "/v1/responses");
    CHECK(reqs.back().path == "/v1/chat/completions");
  }
  // Open: the next call goes straight to Chat Completions.
  auto before = gw.llm.request_count();
  auto r = gw.ask_model("gpt-5");
  CHECK(r.content == "echo: hello");
  CHECK(gw.llm.request_count() == before + 1);
  CHECK(gw.last_path() == "/v1/chat/completions");
  // The breaker is per model and effort: another key still probes.
  gw.ask_model("gpt-5", "low");
  CHECK(gw.last_path() == "/v1/responses");
  // A 500 is not a refusal: retried on Responses, never a fallback.
  gw.llm.push(error(500, "upstream busy"));
  auto busy = gw.ask_model("o4-mini");
  CHECK(busy.content == "echo: hello");
  CHECK(gw.last_path() == "/v1/responses");
}

TEST_CASE("responses provider: an endpoint that refuses server compaction "
          "is asked for it no more") {
  openai_gateway gw;
  auto asks_compaction = [&](size_t i) {
    return gw.llm.requests().at(i).body.contains("context_management");
  };
  auto r = gw.ask_model("gpt-5", "", true, 400000);
  CHECK(r.content == "echo: hello");
  REQUIRE(gw.llm.request_count() == 1);
  CHECK(asks_compaction(0));
  // Refused: the same call goes again without it, and answers.
  gw.llm.push(rs::error(400, "Unknown parameter: 'context_management'.",
                        "context_management"));
  r = gw.ask_model("gpt-5", "", true, 400000);
  CHECK(r.content == "echo: hello");
  REQUIRE(gw.llm.request_count() == 3);
  CHECK(asks_compaction(1));
  CHECK_FALSE(asks_compaction(2));
  // From now on no call to that provider asks for it, whichever worker
  // runs it and whatever the model.
  std::vector<std::thread> side;
  for (int i = 0; i < 4; ++i)
    side.emplace_back([&, i] {
      gw.ask_model(i % 2 ? "gpt-5" : "o3", "", true, 400000);
    });
  for (auto& t : side)
    t.join();
  REQUIRE(gw.llm.request_count() == 7);
  for (size_t i = 3; i < 7; ++i) {
    CHECK(gw.llm.requests()[i].path == "/v1/responses");
    CHECK_FALSE(asks_compaction(i));
  }
}

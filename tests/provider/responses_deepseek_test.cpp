// DeepSeek's Responses models (the original's registry responses_models and
// responses_default_tools): under apiType auto its v4 models are called
// through the Responses API with DeepSeek's hosted web search in place of
// our web_search, their reasoning text replayed as reasoning items, no
// encrypted reasoning asked for; its other models stay on Chat Completions.
// The provider actor against the scripted server over real sockets.
#include <doctest/doctest.h>

#include "actors/provider/fallback_call.hpp"
#include "actors/provider/responses_route.hpp"
#include "tests/provider/provider_gateway.hpp"
#include "tests/support/fake_openai_responses.hpp"

using namespace nb;
using namespace nb::test;

namespace {

provider_choice deepseek_route_choice(std::string extra_body = "") {
  provider_choice c;
  c.name = "deepseek";
  c.api_base = "https://api.deepseek.com";
  c.model = "deepseek-v4-flash";
  c.extra_body = std::move(extra_body);
  return c;
}

/// A provider actor for providers.deepseek at the scripted server.
struct deepseek_gateway : provider_gateway {
  explicit deepseek_gateway(std::string extra_body = "") {
    settings s;
    s.agent.model = "deepseek-v4-flash";
    s.agent.provider = "deepseek";
    auto& p = s.providers["deepseek"];
    p.api_key = secret;
    p.api_base = llm.base_url();
    p.extra_body = std::move(extra_body);
    start(s);
  }

  recorded_request last() const { return llm.requests().back(); }
};

/// A turn after an answer that reasoned, with our tools (web_search among
/// them), for `model`.
model_request deepseek_turn(const std::string& model) {
  auto rq = ask("and now?", true);
  rq.messages_json =
    json::array({{{"role", "user"}, {"content", "hi"}},
                 {{"role", "assistant"},
                  {"content", "hello"},
                  {"reasoning_content", "they greet me"}},
                 {{"role", "user"}, {"content", "and now?"}}})
      .dump();
  rq.tools_json =
    json::array(
      {{{"type", "function"},
        {"function", {{"name", "web_search"}, {"parameters", json::object()}}}},
       {{"type", "function"},
        {"function", {{"name", "read_file"}, {"parameters", json::object()}}}}})
      .dump();
  rq.model = model;
  rq.provider = "deepseek";
  rq.reasoning_effort = "none";
  rq.context_window_tokens = 400000;
  return rq;
}

} // namespace

TEST_CASE("deepseek responses: which models, and when Chat Completions may "
          "take over") {
  auto c = deepseek_route_choice();
  // Its hosted web search is on by default: Responses only.
  CHECK(responses_route(c, "deepseek-v4-flash", "") == responses_use::required);
  CHECK(responses_route(c, "DeepSeek-V4-Pro", "") == responses_use::required);
  CHECK(responses_route(c, "deepseek/deepseek-v4-flash-vision-exp", "")
        == responses_use::required);
  CHECK(responses_route(c, "deepseek-chat", "high") == responses_use::never);
  CHECK(responses_route(c, "deepseek-v4-flash-2", "") == responses_use::never);
  CHECK(responses_route(c, "xdeepseek-v4-flash", "") == responses_use::never);
  // Only OpenAI's apiType is read, as in the original.
  c.api_type = "chat_completions";
  CHECK(responses_route(c, "deepseek-v4-pro", "") == responses_use::required);
  // extraBody naming tools without a hosted search: Responses first, Chat
  // Completions when refused (the breaker).
  auto own = deepseek_route_choice(R"({"tools": []})");
  CHECK(responses_route(own, "deepseek-v4-pro", "")
        == responses_use::preferred);
  CHECK(responses_route(deepseek_route_choice(
                          R"({"tools": [{"type": "web_search"}]})"),
                        "deepseek-v4-pro", "")
        == responses_use::required);
  candidate preferred;
  preferred.label = "deepseek-v4-pro";
  preferred.choice = own;
  preferred.choice.model = "deepseek-v4-pro";
  CHECK_FALSE(responses_key_for(preferred, model_request{}).empty());
}

TEST_CASE("deepseek responses: a v4 model's call speaks Responses the "
          "original's DeepSeek way; its other models Chat Completions") {
  deepseek_gateway gw;
  auto reply = gw.send(deepseek_turn("deepseek-v4-flash"));
  CHECK(reply.finish_reason == "stop");
  CHECK(reply.content == "echo: and now?");
  auto sent = gw.last();
  CHECK(sent.path == "/v1/responses");
  auto& body = sent.body;
  // Its hosted search in place of our web_search function.
  CHECK(body["tools"]
        == json::parse(R"([{"type": "function", "name": "read_file",
                            "description": "", "parameters": {}},
                           {"type": "web_search"}])"));
  CHECK_FALSE(body.contains("include"));
  CHECK(body["reasoning"] == json{{"effort", "none"}});
  CHECK_FALSE(body.contains("context_management"));
  // The earlier answer's reasoning goes back as text.
  auto& input = body["input"];
  REQUIRE(input.size() == 4);
  CHECK(input[1]["type"] == "reasoning");
  CHECK(input[1]["content"]
        == json::parse(R"([{"type": "output_text", "text": "they greet me"}])"));
  CHECK(input[2]["type"] == "message");
  // Its answer is a state of DeepSeek's endpoint and model.
  CHECK(reply.stateful);
  REQUIRE(reply.conversation.record);
  auto state = json::parse(*reply.conversation.record);
  CHECK(state["provider"] == "openai_compat:deepseek:" + gw.llm.base_url());
  CHECK(state["model"] == "deepseek-v4-flash");

  auto chat = gw.send(deepseek_turn("deepseek-chat"));
  CHECK(chat.content == "echo: and now?");
  CHECK(gw.last().path == "/v1/chat/completions");
  CHECK_FALSE(chat.stateful);

  // Responses only: a refusal is shown, not hidden behind Chat Completions.
  gw.llm.push(responses::error(400, "Unsupported parameter: 'reasoning'",
                               "reasoning"));
  auto before = gw.llm.request_count();
  auto refused = gw.send(deepseek_turn("deepseek-v4-pro"));
  CHECK(refused.finish_reason == "error");
  CHECK(gw.llm.request_count() == before + 1);
  CHECK(gw.last().path == "/v1/responses");
}

TEST_CASE("deepseek responses: with extraBody's own tools, a refusal falls "
          "back to Chat Completions") {
  deepseek_gateway gw{R"({"tools": []})"};
  gw.llm.push(responses::error(400, "Unsupported parameter: "
                               "'max_output_tokens'", "max_output_tokens"));
  auto reply = gw.send(deepseek_turn("deepseek-v4-pro"));
  CHECK(reply.content == "echo: and now?");
  auto all = gw.llm.requests();
  REQUIRE(all.size() == 2);
  CHECK(all[0].path == "/v1/responses");
  CHECK(all[1].path == "/v1/chat/completions");
  // No hosted tool was added: ours stand, web_search included.
  CHECK(all[0].body["tools"].size() == 2);
  CHECK(all[0].body["tools"][0]["name"] == "web_search");
}

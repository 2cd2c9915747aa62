// Whole turns through the real actor tree against providers other than the
// default OpenAI-compatible one: Anthropic's Messages API end to end.
#include <doctest/doctest.h>

#include <memory>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/fake_anthropic.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
namespace an = nb::test::anthropic;

namespace {

struct provider_gateway : gateway_fixture {
  explicit provider_gateway(void (*tune)(settings&) = nullptr)
    : gateway_fixture([tune](settings& cfg, fake_llm& llm) {
        cfg.agent.model = "claude-test";
        cfg.agent.provider = "anthropic";
        cfg.providers.erase("custom");
        cfg.providers["anthropic"].api_key = "sk-ant-test";
        cfg.providers["anthropic"].api_base = llm.base_url();
        if (tune)
          tune(cfg);
      }) {
  }

  chat_reply say(const std::string& text, bool stream = false) {
    return say_in("a1", text, stream);
  }
};

} // namespace

TEST_CASE("anthropic: a turn with thinking and a tool call replays the thinking") {
  provider_gateway gw;
  gw.llm.push(an::stream(
    json::array({an::thinking_block("List the workspace first.", "sig-xyz"),
                 an::tool_use_block("toolu_1", "list_dir", {{"path", "."}})}),
    "tool_use"));
  gw.llm.push(an::stream_text({"The workspace ", "is ready."}));
  auto r = gw.say("what is in the workspace?", true);
  REQUIRE_FALSE(r.timed_out);
  CHECK_FALSE(r.is_error);
  CHECK(r.content == "The workspace is ready.");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].path == "/v1/messages");
  CHECK(reqs[0].headers["x-api-key"] == "sk-ant-test");
  // The system prompt travels as the system field, cached.
  REQUIRE(reqs[0].body["system"].is_array());
  CHECK(reqs[0].body["system"].back()["cache_control"]["type"] == "ephemeral");
  CHECK(reqs[0].body["tools"].back().contains("cache_control"));
  // Second call: the assistant turn replays thinking (with its signature)
  // before the tool_use, and the result follows as a tool_result.
  auto& msgs = reqs[1].body["messages"];
  auto& assistant = msgs[msgs.size() - 2];
  CHECK(assistant["role"] == "assistant");
  CHECK(assistant["content"][0]["type"] == "thinking");
  CHECK(assistant["content"][0]["signature"] == "sig-xyz");
  CHECK(assistant["content"][1]["type"] == "tool_use");
  auto& result = msgs.back()["content"][0];
  CHECK(result["type"] == "tool_result");
  CHECK(result["tool_use_id"] == "toolu_1");
  // The session file keeps the thinking blocks for later turns.
  auto saved = session_messages(gw.cfg, "test:a1");
  REQUIRE(saved.size() >= 3);
  CHECK(saved[1]["thinking_blocks"][0]["signature"] == "sig-xyz");
  // The thinking never reached the user as answer text.
  for (auto& m : r.before)
    CHECK(m.content.find("List the workspace") == std::string::npos);
}

TEST_CASE("anthropic: an overloaded API is retried and then answers") {
  provider_gateway gw;
  gw.llm.push(an::error(529, "overloaded_error", "Overloaded", 0));
  gw.llm.push(an::text("Here I am."));
  auto r = gw.say("hello");
  CHECK_FALSE(r.is_error);
  CHECK(r.content == "Here I am.");
  CHECK(gw.llm.request_count() == 2);
}

TEST_CASE("fallback: a failing primary hands the turn to the fallback model") {
  provider_gateway gw{[](settings& s) {
    // The primary is Anthropic on the fake; the fallback an OpenAI-compatible
    // server named "backup" on the same fake.
    s.providers["backup"].api_base = s.providers["anthropic"].api_base;
    fallback_model f;
    f.model = "backup-model";
    f.provider = "backup";
    s.agent.fallback_models.push_back(f);
  }};
  gw.llm.push(an::error(401, "authentication_error", "invalid x-api-key"));
  gw.llm.push(text("the fallback speaks"));
  auto r = gw.say("anyone there?", true);
  CHECK_FALSE(r.is_error);
  CHECK(r.content == "the fallback speaks");
  bool told = false;
  for (auto& m : r.before)
    told = told || (m.kind == outbound_kind::retry_wait
                    && m.content.find("fallback model backup-model")
                         != std::string::npos);
  CHECK(told);
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].path == "/v1/messages");
  CHECK(reqs[1].path == "/v1/chat/completions");
  CHECK(reqs[1].body["model"] == "backup-model");
}

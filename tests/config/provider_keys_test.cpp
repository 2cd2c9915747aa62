// The original's keys that change how a model is called or where web
// traffic goes: read into the settings, refused with the key named when
// they cannot work, never echoing a value (a proxy URL may hold a password).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("provider request keys, reasoningEffort, skills and unifiedSession "
          "reach the settings") {
  auto l = ok(parse(R"({
    "agents": {"defaults": {"reasoningEffort": "high", "unifiedSession": true,
      "disabledSkills": ["weather", "github"],
      "fallbackModels": [{"model": "b", "reasoningEffort": "low"}]}},
    "modelPresets": {"deep": {"model": "m", "reasoningEffort": "max"}},
    "providers": {"custom": {"apiBase": "http://127.0.0.1:1/v1",
      "extraBody": {"top_p": 0.5, "nested": {"k": [1, 2]}},
      "extraQuery": {"api-version": "2024-06-01"},
      "proxy": "http://user:pw@proxy.lan:3128",
      "thinkingStyle": "enable_thinking"},
      "openai": {"apiType": "chat_completions"}},
    "tools": {"web": {"proxy": "http://127.0.0.1:8118"}}})"));
  auto& a = l.value.agent;
  CHECK(a.reasoning_effort == "high");
  CHECK(a.unified_session);
  CHECK(a.disabled_skills == std::vector<std::string>{"weather", "github"});
  REQUIRE(a.fallback_models.size() == 1);
  CHECK(a.fallback_models[0].reasoning_effort == "low");
  CHECK(l.value.model_presets.at("deep").reasoning_effort == "max");
  auto& p = l.value.providers.at("custom");
  CHECK(nlohmann::json::parse(p.extra_body)
        == nlohmann::json{{"top_p", 0.5}, {"nested", {{"k", {1, 2}}}}});
  CHECK(p.extra_query.at("api-version") == "2024-06-01");
  CHECK(p.proxy == "http://user:pw@proxy.lan:3128");
  CHECK(p.thinking_style == "enable_thinking");
  CHECK(l.value.providers.at("openai").api_type == "chat_completions");
  CHECK(l.value.tools.web.proxy == "http://127.0.0.1:8118");
  for (auto& n : l.notices)
    CHECK_FALSE(contains(n, "accepted, not used"));
}

TEST_CASE(
  "a preset's reasoningEffort becomes the default's when it is chosen") {
  auto l = ok(parse(R"({"agents": {"defaults": {"modelPreset": "deep"}},
    "modelPresets": {"deep": {"model": "m", "reasoningEffort": "low"}}})"));
  CHECK(l.value.agent.reasoning_effort == "low");
}

TEST_CASE(
  "keys that cannot work are refused, naming the key and not the value") {
  auto socks = err(parse(R"({"providers": {"custom": {
    "proxy": "socks4://user:secretpw@127.0.0.1:1080"}}})"));
  CHECK(socks.key_path == "providers.custom.proxy");
  CHECK(contains(socks.reason, "socks4"));
  CHECK_FALSE(contains(socks.message(), "secretpw"));
  ok(parse(R"({"providers": {"custom": {
    "proxy": "socks5://user:pw@127.0.0.1:1080"}},
    "tools": {"web": {"proxy": "socks5h://127.0.0.1"}}})"));
  auto garbage = err(parse(R"({"tools": {"web": {"proxy": "secretpw"}}})"));
  CHECK(garbage.key_path == "tools.web.proxy");
  CHECK_FALSE(contains(garbage.message(), "secretpw"));
  auto style = err(parse(R"({"providers": {"custom": {
    "thinkingStyle": "loud"}}})"));
  CHECK(style.key_path == "providers.custom.thinkingStyle");
  auto api = err(parse(R"({"providers": {"deepseek": {
    "apiType": "responses"}}})"));
  CHECK(api.key_path == "providers.deepseek.apiType");
  CHECK(contains(api.reason, "only providers.openai"));
  auto body = err(parse(R"({"providers": {"custom": {"extraBody": [1]}}})"));
  CHECK(body.key_path == "providers.custom.extraBody");
  CHECK(contains(body.reason, "expected an object"));
}

TEST_CASE("apiType responses is honoured, so status does not list it") {
  auto l = ok(parse(R"({"providers": {"openai": {"apiType": "responses"}}})"));
  CHECK(l.value.providers.at("openai").api_type == "responses");
  for (auto& n : l.notices)
    CHECK_FALSE(contains(n, "apiType"));
}

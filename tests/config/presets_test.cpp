// modelPresets, agents.defaults.modelPreset and fallbackModels: parsing,
// inheritance and the errors a user reads.
#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("presets and fallbacks are read") {
  auto s = ok(parse(R"({
    "agents": {"defaults": {"model": "gpt-4o",
      "fallbackModels": ["cheap", {"model": "deepseek/deepseek-chat",
                                   "max_tokens": 2048}]}},
    "modelPresets": {"cheap": {"model": "gpt-4o-mini", "provider": "openai",
                               "maxTokens": 1024, "temperature": 0.5},
                     "Deep": {"model": "claude-opus-4-5",
                              "contextWindowTokens": 200000}}})")).value;
  REQUIRE(s.model_presets.size() == 2);
  auto& cheap = s.model_presets.at("cheap");
  CHECK(cheap.model == "gpt-4o-mini");
  CHECK(cheap.provider == "openai");
  CHECK(cheap.max_tokens == 1024);
  CHECK(cheap.temperature == 0.5);
  auto& deep = s.model_presets.at("Deep"); // names are kept as written
  CHECK(deep.provider == "auto");
  CHECK(deep.context_window_tokens == 200000);
  REQUIRE(s.agent.fallback_models.size() == 2);
  CHECK(s.agent.fallback_models[0].preset == "cheap");
  CHECK(s.agent.fallback_models[1].model == "deepseek/deepseek-chat");
  CHECK(s.agent.fallback_models[1].max_tokens == 2048);
  CHECK(s.agent.fallback_models[1].temperature < 0); // inherits
  CHECK(s.agent.model == "gpt-4o");
}

TEST_CASE("modelPreset replaces the default model settings") {
  auto s = ok(parse(R"({
    "agents": {"defaults": {"model": "gpt-4o", "modelPreset": "fast"}},
    "modelPresets": {"fast": {"model": "groq/llama-3.3-70b",
                              "maxTokens": 512}}})")).value;
  CHECK(s.agent.model == "groq/llama-3.3-70b");
  CHECK(s.agent.max_tokens == 512);
  CHECK(s.agent.provider == "auto");
}

TEST_CASE("preset mistakes name the key and the known presets") {
  auto e = err(parse(R"({"agents": {"defaults": {"modelPreset": "fats"}},
                         "modelPresets": {"fast": {"model": "m"}}})"));
  CHECK(e.key_path == "agents.defaults.modelPreset");
  CHECK(contains(e.reason, "unknown preset \"fats\""));
  CHECK(contains(e.reason, "fast"));
  auto f = err(parse(R"({"agents": {"defaults": {"fallbackModels": ["x"]}}})"));
  CHECK(f.key_path == "agents.defaults.fallbackModels[0]");
  CHECK(contains(f.reason, "unknown preset \"x\""));
  auto g = err(parse(R"({"agents": {"defaults": {"fallbackModels":
                           [{"provider": "openai"}]}}})"));
  CHECK(g.key_path == "agents.defaults.fallbackModels[0].model");
  auto h = err(parse(R"({"agents": {"defaults": {"fallbackModels":
                           [{"model": "m", "maxTokens": -3}]}}})"));
  CHECK(h.key_path == "agents.defaults.fallbackModels[0].maxTokens");
  auto i = err(parse(R"({"agents": {"defaults": {"fallbackModels": [3]}}})"));
  CHECK(contains(i.reason, "expected a preset name or an object"));
  auto j = err(parse(R"({"modelPresets": {"default": {"model": "m"}}})"));
  CHECK(j.key_path == "modelPresets.default");
  auto k = err(parse(R"({"modelPresets": {"p": {"model": "m",
                                                "temperature": 9}}})"));
  CHECK(k.key_path == "modelPresets.p.temperature");
}

TEST_CASE("a misspelt preset key gets a suggestion") {
  auto w = ok(parse(R"({"modelPresets": {"p": {"model": "m",
                                               "maxTokns": 5}}})")).warnings;
  CHECK(any_contains(w, "did you mean modelPresets.p.maxTokens"));
}

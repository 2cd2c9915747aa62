// A gateway whose model is OpenAI's gpt-5 through the Responses API
// (providers.openai.apiType "responses") at the scripted server.
#pragma once

#include "tests/integration/harness.hpp"

namespace nb::test {

inline void use_openai_responses(settings& cfg, const fake_llm& llm) {
  cfg.agent.model = "gpt-5";
  cfg.agent.provider = "openai";
  cfg.providers.erase("custom");
  auto& p = cfg.providers["openai"];
  p.api_key = "sk-openai-test";
  p.api_base = llm.base_url();
  p.api_type = "responses";
}

} // namespace nb::test

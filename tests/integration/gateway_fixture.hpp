// A whole gateway runtime inside the test process: a fresh home, the
// scripted LLM, and settings a test may tune before the runtime starts.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/harness.hpp"

namespace nb::test {

struct gateway_fixture {
  temp_home home;
  fake_llm llm;
  settings cfg;
  std::unique_ptr<runtime> rt;

  /// `tune` sees the settings, and the LLM to script it, before the start.
  explicit gateway_fixture(
    const std::function<void(settings&, fake_llm&)>& tune = {}) {
    cfg = settings_for(home, llm);
    if (tune)
      tune(cfg, llm);
    rt = std::make_unique<runtime>(cfg);
  }

  /// One message on channel "test" in `chat_id`; waits for the final reply.
  chat_reply say_in(const std::string& chat_id, const std::string& text,
                    bool stream = false) {
    return chat(rt->system(), rt->router(), "test", chat_id, text, stream);
  }
};

} // namespace nb::test

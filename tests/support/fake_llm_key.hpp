// The scripted LLM wanting an API key, as OpenAI does: a call without the
// right key (Authorization: Bearer, or x-api-key) gets OpenAI's 401
// invalid_api_key answer, on chat completions, messages and /models.
#pragma once

#include <string>

#include "tests/support/fake_llm.hpp"

namespace nb::test {

/// From now on `llm` refuses calls without `key`; "" = no check again.
void require_key(fake_llm& llm, std::string key);

} // namespace nb::test

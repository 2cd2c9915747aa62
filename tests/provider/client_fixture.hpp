// Shared pieces of the client tests: a choice pointing at the fake, fast
// options, a request, and a recorder for deltas and notices.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "actors/provider/model_client.hpp"
#include "tests/support/fake_llm.hpp"

namespace nb::test {

using json = nlohmann::json;
using std::chrono::milliseconds;

inline constexpr auto secret = "sk-test-0123456789abcdef";

inline provider_choice choice_for(const fake_llm& llm) {
  provider_choice c;
  c.name = "custom";
  c.api_base = llm.base_url();
  c.api_key = secret;
  c.model = "fake-model";
  c.headers["X-Extra"] = "yes";
  return c;
}

/// Fast options: tiny back-off, short timeouts.
inline client_options fast() {
  client_options o;
  o.retry_delays = {milliseconds{10}, milliseconds{20}, milliseconds{40}};
  o.retry_after_buffer = milliseconds{0};
  o.stream_idle_timeout = milliseconds{300};
  o.attempt_timeout = milliseconds{2000};
  return o;
}

inline model_request ask(std::string text, bool stream = false) {
  model_request r;
  r.request_id = "test:1:0";
  r.messages_json = json::array({{{"role", "user"}, {"content", text}}}).dump();
  r.max_tokens = 64;
  r.temperature = 0.2;
  r.stream = stream;
  return r;
}

/// Collects what the client tells its caller.
struct recorder {
  std::vector<std::string> deltas;
  std::vector<std::string> notices;
  callbacks cb() {
    return {[this](std::string t, bool) { deltas.push_back(std::move(t)); },
            [this](std::string n) { notices.push_back(std::move(n)); }};
  }
};

} // namespace nb::test

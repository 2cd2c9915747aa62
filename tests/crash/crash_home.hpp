// A nanobot home for crash tests: a config for the real executable (scripted
// LLM, chosen channels), the gateway as a child process, and what the
// session files say afterwards.
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/settings.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/fake_llm.hpp"

namespace nb::test {

struct crash_home {
  temp_home home;
  std::string config;
  int api_port = free_port();
  int gateway_port = free_port();

  /// `extra` is merged into the config (channels, gateway keys ...).
  crash_home(const fake_llm& llm, nlohmann::json extra);

  settings loaded() const;
  child_process start_gateway() const;
  /// Starts the gateway and waits for "gateway ready" (throws on timeout).
  child_process start_ready() const;

  /// A gauge from the running gateway's GET /stats (-1 when unreachable).
  int64_t gauge(const std::string& name) const;

  /// The user messages' contents in the session file of `key`, in order.
  std::vector<std::string> user_texts(const std::string& key) const;
};

/// A gauge from the GET /stats of the gateway whose health port is `port`
/// (-1 when unreachable).
int64_t gauge_at(int port, const std::string& name);

/// How often `text` occurs in `texts`.
int occurrences(const std::vector<std::string>& texts, const std::string& text);

/// Every text the model was sent as a user message, over all requests.
std::vector<std::string> model_saw(const fake_llm& llm);

/// Waits until the model was sent each of `texts` (false on timeout).
bool wait_model_saw(const fake_llm& llm, const std::vector<std::string>& texts,
                    std::chrono::milliseconds timeout);

/// The slow first answer: a stream that starts and then never ends (until
/// the gateway is killed and the connection drops).
fake_response stalled_answer();

} // namespace nb::test

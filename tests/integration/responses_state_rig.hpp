// The rig of the Responses conversation-state tests: a scripted server whose
// every answer carries a reasoning item with its own encrypted content, and
// a gateway on it that reads the session file's provider_state line.
#pragma once

#include <atomic>
#include <functional>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"
#include "tests/integration/responses_gateway.hpp"
#include "tests/support/fake_openai_responses.hpp"

namespace nb::test {

/// What the scripted server answered one request with.
struct answered {
  nlohmann::json body;
  nlohmann::json output;
};

/// Every /responses request gets a reasoning item with its own encrypted
/// content and a message: what a reasoning model with store false sends.
struct reasoning_server {
  std::mutex lock;
  std::vector<answered> log;
  std::atomic<int> calls{0};

  fake_llm::responder responder() {
    return [this](const nlohmann::json& body) {
      int n = ++calls;
      auto reasoning = responses::reasoning_item("rs_" + std::to_string(n), "thought");
      reasoning["encrypted_content"] = "gAAAA-opaque-" + std::to_string(n);
      nlohmann::json output = nlohmann::json::array(
        {reasoning, responses::message_item("msg_" + std::to_string(n),
                                     "answer " + std::to_string(n))});
      {
        std::lock_guard<std::mutex> g{lock};
        log.push_back({body, output});
      }
      return responses::stream(output, responses::usage(100 * n, 10));
    };
  }

  /// The request whose last input item is a user message saying `marker`.
  answered turn(const std::string& marker) {
    std::lock_guard<std::mutex> g{lock};
    for (auto it = log.rbegin(); it != log.rend(); ++it) {
      auto& input = it->body["input"];
      if (!input.is_array() || input.empty())
        continue;
      auto& last = input.back();
      if (last.value("role", "") == "user"
          && last["content"].dump().find(marker) != std::string::npos)
        return *it;
    }
    FAIL("no request for ", marker);
    return {};
  }
};

struct state_gateway : gateway_fixture {
  /// `also` changes the settings further before the start.
  explicit state_gateway(reasoning_server& server,
                         const std::function<void(settings&)>& also = {})
      : gateway_fixture([&](settings& cfg, fake_llm& llm) {
          use_openai_responses(cfg, llm);
          // The fixture's turns are days old: no idle archiving here.
          cfg.agent.idle_compact_after_minutes = 0;
          llm.set_responses_responder(server.responder());
          if (also)
            also(cfg);
        }) {}

  /// A gateway process going down and up again on the same files.
  void restart() {
    rt.reset();
    rt = std::make_unique<runtime>(cfg);
  }

  /// The session file's provider_state record, or null.
  nlohmann::json state_line(const std::string& key) {
    auto path = *resolve_sessions_dir(cfg) + "/" + session_file_name(key);
    std::ifstream in{path};
    std::string line;
    std::getline(in, line); // the metadata line
    std::getline(in, line);
    auto record = nlohmann::json::parse(line, nullptr, false);
    if (!record.is_object() || record.value("_type", "") != "provider_state")
      return nullptr;
    return record;
  }
};

/// `a` followed by `b`.
inline nlohmann::json joined(nlohmann::json a, const nlohmann::json& b) {
  for (auto& item : b)
    a.push_back(item);
  return a;
}

inline size_t reasoning_items(const nlohmann::json& input) {
  size_t n = 0;
  for (auto& item : input)
    n += item.value("type", "") == "reasoning";
  return n;
}

} // namespace nb::test

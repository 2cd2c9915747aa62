// A gateway wired by hand, like the supervisor does, with a test actor as
// the outbox, so tests see what reaches the user outside reply_to.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <caf/scoped_actor.hpp>

#include "config/settings.hpp"
#include "messages/interfaces.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/system_fixture.hpp"

namespace nb::test {

struct sub_gateway {
  explicit sub_gateway(int max_concurrent = 1);
  ~sub_gateway();

  temp_home home;
  fake_llm llm;
  settings cfg;
  system_fixture fx;
  caf::scoped_actor outbox{fx.sys}; ///< gets what goes to the outbox
  caf::scoped_actor user{fx.sys};   ///< sends, and gets replies
  session_services svc;
  router_actor router;

  /// Sends `text` from the user to test:<chat>.
  void send(const std::string& text, const std::string& chat = "sub");
  /// The next final reply the user gets ("<timeout>" when none).
  std::string reply(std::chrono::seconds timeout = std::chrono::seconds(60));
  /// The next final reply that reaches the outbox ("<timeout>" when none).
  outbound_msg pushed(std::chrono::seconds timeout = std::chrono::seconds(60));
  /// Requests the LLM got whose system prompt is (or is not) a subagent's.
  std::vector<nlohmann::json> requests(bool subagent) const;
  /// Running subagents, as the manager lists them.
  std::vector<subagent_info> running();
};

/// Whether an LLM request body comes from a subagent.
bool from_subagent(const nlohmann::json& body);
/// The last message of a request body.
const nlohmann::json& last_message(const nlohmann::json& body);
/// Whether a request body's last user message contains `part`.
bool asks(const nlohmann::json& body, const std::string& part);

} // namespace nb::test

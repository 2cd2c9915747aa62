// A temporary nanobot home with a scripted LLM, and helpers to chat through
// the real router from a test.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/interfaces.hpp"
#include "tests/support/fake_llm.hpp"

namespace nb::test {

/// A fresh directory under /tmp, removed with everything in it at the end.
struct temp_home {
  temp_home();
  ~temp_home();
  std::filesystem::path dir;
};

/// Settings for a home in `home` whose provider is `llm`.
settings settings_for(const temp_home& home, const fake_llm& llm);

/// What came back for one inbound message.
struct chat_reply {
  std::string content;
  bool is_error = false;
  bool streamed = false;
  std::string metadata_json = "{}"; ///< the final reply's
  std::vector<outbound_msg> before; ///< deltas, progress, ... before the end
  bool timed_out = false;
};

/// Sends `text` to the router as channel/chat and waits for the final reply.
chat_reply chat(caf::actor_system& sys, const router_actor& router,
                const std::string& channel, const std::string& chat_id,
                const std::string& text, bool stream = false,
                std::chrono::seconds timeout = std::chrono::seconds(60));

/// The session file of `key` parsed into messages (metadata line skipped).
std::vector<nlohmann::json> session_messages(const settings& cfg,
                                             const std::string& key);

} // namespace nb::test

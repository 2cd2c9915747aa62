// The system prompt a turn starts from: who the agent is, where it works,
// how it uses tools, and the workspace's bootstrap files.
#pragma once

#include <string>

namespace nb {

/// Bootstrap files read from the workspace root, in prompt order.
inline constexpr const char* bootstrap_files[]
  = {"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "IDENTITY.md"};

/// Builds the system prompt for `workspace` (absolute path). Reads the
/// bootstrap files; missing or empty ones are left out.
std::string build_system_prompt(const std::string& workspace);

/// The system prompt of one workspace, rebuilt only when a bootstrap file
/// changed: each call stats the files instead of reading them.
class system_prompt_cache {
public:
  const std::string& get(const std::string& workspace);

private:
  std::string workspace_;
  std::string stamp_; ///< size and mtime of every bootstrap file
  std::string text_;
};

/// The metadata block appended after the user's text (not persisted), so the
/// prompt prefix stays stable for provider caches.
std::string runtime_context(const std::string& channel,
                            const std::string& chat_id,
                            const std::string& sender_id);

} // namespace nb

// The system prompt a turn starts from, in a fixed section order: identity,
// bootstrap files, tool contract, long-term memory, always-on skills, the
// skills summary, recent history, the archived summary. Sections are joined
// by a visible separator; the per-turn runtime block goes after the user's
// text instead, so this prefix stays stable for provider prompt caches.
#pragma once

#include <string>

#include "actors/cron/time_zone.hpp"

namespace nb {

/// Bootstrap files read from the workspace root, in prompt order.
inline constexpr const char* bootstrap_files[]
  = {"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "IDENTITY.md"};

/// Between two sections of the system prompt.
inline constexpr const char* section_separator = "\n\n---\n\n";

/// What the prompt depends on besides the workspace files.
struct prompt_inputs {
  std::string workspace; ///< absolute
  std::string channel;   ///< picks the format hint
  std::string session_key; ///< picks the recent history entries
  std::string summary;     ///< archived summary of older turns ("" = none)
  std::string summary_at;  ///< when the summarised conversation was active
  std::string path_env;    ///< PATH, for skill requirements
};

/// Builds the system prompt. Bootstrap files and MEMORY.md that are empty
/// or identical to the shipped template are left out.
std::string build_system_prompt(const prompt_inputs& in);

/// The system prompt of one session, rebuilt only when an input or a file
/// it reads changed: each call stats the files instead of reading them.
class system_prompt_cache {
public:
  const std::string& get(const prompt_inputs& in);

private:
  std::string stamp_; ///< inputs plus size and mtime of every file read
  std::string text_;
};

/// The metadata block appended after the user's text (not persisted). The
/// time is shown in `zone` (agents.defaults.timezone), or the host's zone.
std::string runtime_context(const std::string& channel,
                            const std::string& chat_id,
                            const std::string& sender_id,
                            const cron::time_zone* zone = nullptr);

} // namespace nb

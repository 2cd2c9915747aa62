// The system prompt a turn starts from, in a fixed section order: identity,
// bootstrap files, tool contract, long-term memory, always-on skills, the
// skills summary, recent history, the archived summary. Sections are joined
// by a visible separator; the per-turn runtime block goes after the user's
// text instead, so this prefix stays stable for provider prompt caches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actors/cron/time_zone.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/skills/skills.hpp"

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

/// What the prompt takes from the workspace files, read once and shared by
/// every session of the agent (the workspace actor caches it).
struct workspace_parts {
  std::string bootstrap;      ///< "## AGENTS.md ..." sections, joined
  std::string memory;         ///< MEMORY.md ("" = empty or the template)
  std::vector<skill_info> skills;
  std::string always_skills;  ///< the "# Active Skills" section
  std::string skills_summary;
  std::vector<history_entry> history;
  int64_t files_read = 0;     ///< files opened to make these
};

/// Reads the workspace's prompt files, with the skills `skills` offers.
/// Blocking: worker threads only.
workspace_parts read_workspace_parts(const std::string& workspace,
                                     const std::string& path_env,
                                     const skill_selection& skills = {});

/// Where the Agent Plugins' enabled markers of `workspace` are kept under
/// `plugin_home` ("" without one). It resolves the paths' links (a dozen
/// system calls and a hash): worked out once by the caller, not per stamp.
std::string plugin_state_dir(const std::string& workspace,
                             const std::string& plugin_home);

/// Size and mtime of every file the prompt reads (stat only): when it
/// changes, the parts must be read again. With `plugin_state` (from
/// plugin_state_dir), also the Agent Plugins' folders and their enabled
/// markers.
std::string workspace_stamp(const std::string& workspace,
                            const std::string& plugin_state = {});

/// The system prompt of one session from the shared parts (no I/O).
std::string assemble_system_prompt(const workspace_parts& parts,
                                   const prompt_inputs& in);

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

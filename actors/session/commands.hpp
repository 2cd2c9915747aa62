// Slash commands: the table of commands, their parsing, and what a command
// may see of its session. A command is one table entry plus one file; the
// session runs it in the COMMAND state, or at once while a turn is running.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/session/model_choice.hpp"
#include "actors/session/transcript.hpp"
#include "messages/model.hpp"

namespace nb {

/// What the session does after a command answered.
enum class command_action {
  reply,       ///< just send the text
  new_session, ///< archive the conversation and start a fresh one
  stop,        ///< cancel the running turn and its subagents
  goal,        ///< /goal: the message goes on to the model as a goal request
};

/// What a command may know about its session. A command changes nothing
/// in it: it says in its reply what the session should change.
struct command_context {
  std::string session_key;
  std::string agent = "main"; ///< the agent answering this chat
  std::string agent_name;     ///< its name ("" = none)
  std::string args;      ///< the text after the command word, trimmed
  std::string workspace; ///< absolute
  /// agents.defaults.disabledSkills (null = none)
  const std::vector<std::string>* disabled_skills = nullptr;
  std::string model; ///< the session's model ("" = unknown)
  int64_t context_window_tokens = 0;
  int64_t max_tokens = 0;
  /// The messages held in memory; `earlier_messages` archived ones before
  /// them are in the file only, their recorded usage in `earlier_usage`
  /// (by model: turns, requests, prompt/completion/cached tokens).
  const transcript_entries* transcript = nullptr;
  size_t earlier_messages = 0;
  const nlohmann::json* earlier_usage = nullptr;
  token_usage last_usage;     ///< of the last finished turn
  token_usage last_turn_sum;  ///< that turn's requests added up
  int64_t uptime_s = 0;
  bool busy = false;          ///< a turn is running right now
  int32_t active_tasks = 0;   ///< running turn plus subagents
  const model_catalog* models = nullptr; ///< agents.defaults + modelPresets
  /// The session's preset ("" = agents.defaults).
  std::string preset;
  /// How the last recall searched memory ("" = not yet), for /status.
  std::string memory_status;
  /// What the session fetched from memory for /memory and /stats.
  std::string memory_text;
};

struct command_reply {
  std::string text;
  command_action action = command_action::reply;
  /// /model: the preset the session switches to ("" = agents.defaults);
  /// the session applies it and records it in its file.
  std::optional<std::string> switch_preset = std::nullopt;
};

using command_fn = command_reply (*)(command_context& ctx);

/// One command. `takes_args` false: "/x something" is refused with a note.
struct command_spec {
  const char* name;     ///< "/status", lower case
  const char* arg_hint; ///< "[n]", "" when none
  const char* summary;
  command_fn run;
  bool takes_args = false;
};

/// Every command, in /help order.
const std::vector<command_spec>& command_table();

/// A message recognised as a command.
struct parsed_command {
  bool is_command = false;         ///< the text starts with '/'
  const command_spec* spec = nullptr; ///< null: unknown command
  std::string name; ///< as typed, lower-cased, without '@botname'
  std::string args;
};

/// Parses `text` ("/Help@my_bot", "/history 5"). Plain text: not a command.
parsed_command parse_command(const std::string& text);

/// Runs `cmd` (unknown ones and refused arguments get an explanation).
command_reply run_command(const parsed_command& cmd, command_context& ctx);

/// The reply to an unknown command, with a "did you mean" when one is close.
std::string unknown_command_text(const std::string& name);

// -- the built-in commands, one file each (cmd_*.cpp) ------------------------

command_reply cmd_help(command_context& ctx);
command_reply cmd_new(command_context& ctx);
command_reply cmd_stop(command_context& ctx);
command_reply cmd_status(command_context& ctx);
command_reply cmd_history(command_context& ctx);
command_reply cmd_evaluator_prompt(command_context& ctx);
command_reply cmd_skill(command_context& ctx);
command_reply cmd_model(command_context& ctx);
command_reply cmd_stats(command_context& ctx);
command_reply cmd_memory_search(command_context& ctx);
command_reply cmd_agent(command_context& ctx);
command_reply cmd_goal(command_context& ctx);

/// The /help text.
std::string help_text();

} // namespace nb

// Subagents: the pure parts — spawn arguments, the subagent's system
// prompt, the result and announcement texts, the tool scope.
#pragma once

#include <string>
#include <vector>

#include "messages/runner.hpp"

namespace nb {

/// The spawn tool's arguments, checked. `error` names the problem.
struct spawn_args {
  std::string task;
  std::string label;
  double temperature = -1; ///< -1: the agent's
  bool wait = false;
  std::string error;
};

/// Parses and checks `arguments_json` (task required and non-blank, label a
/// string, temperature a number in 0..2, wait a boolean).
spawn_args parse_spawn_args(const std::string& arguments_json);

/// The first 30 characters of `task` (whole UTF-8 sequences, one line),
/// with "..." when it was longer.
std::string default_label(const std::string& task);

/// The tools a subagent may use: files, search, shell and web; never
/// message, spawn, cron or MCP tools.
const std::vector<std::string>& subagent_tools();

/// The subagent's system prompt: its role, the rules, the workspace.
std::string subagent_system_prompt(const std::string& workspace);

/// The spawn tool's answer for a background start.
std::string started_text(const std::string& label, const std::string& id);

/// The spawn tool's (non-error) answer when `running` of `limit` run.
std::string limit_text(size_t running, int limit);

/// What a finished run produced, for the main agent; `ok` tells success.
std::string result_text(const turn_outcome& out, bool& ok);

/// The message that brings a finished subagent's result back into its
/// session, asking the agent to tell the user in a sentence or two.
std::string announce_text(const std::string& label, const std::string& task,
                          const std::string& result, bool ok);

} // namespace nb

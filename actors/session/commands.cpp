#include "actors/session/commands.hpp"

#include <algorithm>
#include <cctype>

#include "config/spelling.hpp"

namespace nb {

const std::vector<command_spec>& command_table() {
  // Add a command here and put its handler in a cmd_<name>.cpp of its own.
  static const std::vector<command_spec> table{
    {"/help", "", "show this list", cmd_help, false},
    {"/new", "", "archive this conversation and start a fresh one", cmd_new,
     false},
    {"/stop", "", "stop the running task and its subagents", cmd_stop, false},
    {"/goal", "<task>",
     "work on a long-running task as a sustained goal: the agent records "
     "it and keeps going until it is done",
     cmd_goal, true},
    {"/status", "", "model, tokens, context use, session size, uptime",
     cmd_status, false},
    {"/history", "[n]", "show the last n messages (default 10, at most 50)",
     cmd_history, true},
    {"/model", "[preset]",
     "list the model presets, or switch this chat to one (default: "
     "agents.defaults)",
     cmd_model, true},
    {"/stats", "", "this conversation's token use per model and in total",
     cmd_stats, false},
    {"/agent", "", "which agent answers this chat (model, workspace)",
     cmd_agent, false},
    {"/skill", "", "list the skills the agent can use", cmd_skill, false},
    {"/memory", "<query>", "search the agent's memory (facts, profile, "
     "experience)", cmd_memory_search, true},
    {"/evaluator-prompt", "[init]",
     "the heartbeat's notification-gate prompt; init writes an editable copy",
     cmd_evaluator_prompt, true},
  };
  return table;
}

parsed_command parse_command(const std::string& text) {
  auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos || text[begin] != '/')
    return {};
  auto end = text.find_first_of(" \t\r\n", begin);
  auto word = text.substr(begin, end == std::string::npos ? std::string::npos
                                                          : end - begin);
  // Telegram and Discord address commands as "/cmd@botname".
  if (auto at = word.find('@'); at != std::string::npos)
    word.erase(at);
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  parsed_command out;
  out.is_command = true;
  out.name = word;
  if (end != std::string::npos) {
    auto a = text.find_first_not_of(" \t\r\n", end);
    auto z = text.find_last_not_of(" \t\r\n");
    if (a != std::string::npos)
      out.args = text.substr(a, z - a + 1);
  }
  for (auto& c : command_table())
    if (word == c.name)
      out.spec = &c;
  return out;
}

command_reply run_command(const parsed_command& cmd, command_context& ctx) {
  if (!cmd.spec)
    return {unknown_command_text(cmd.name)};
  if (!cmd.spec->takes_args && !cmd.args.empty())
    return {"Command \"" + cmd.name + "\" does not accept arguments. Send \""
            + cmd.name + "\" on its own."};
  ctx.args = cmd.args;
  return cmd.spec->run(ctx);
}

std::string help_text() {
  std::string out = "nanobot commands:\n";
  for (auto& c : command_table()) {
    out += c.name;
    if (*c.arg_hint)
      out += std::string{" "} + c.arg_hint;
    out += std::string{" — "} + c.summary + "\n";
  }
  out += "Anything else goes to the agent.";
  return out;
}

command_reply cmd_help(command_context&) {
  return {help_text()};
}

std::string unknown_command_text(const std::string& name) {
  const command_spec* best = nullptr;
  size_t best_distance = 0;
  for (auto& c : command_table()) {
    auto d = edit_distance(name, c.name);
    if (!best || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  // Close enough: at least 60 % alike, like difflib's default cutoff.
  if (best) {
    auto longest = std::max(name.size(), std::string{best->name}.size());
    if (best_distance * 5 <= longest * 2)
      return "Unknown command \"" + name + "\". Did you mean \"" + best->name
             + "\"?";
  }
  return "Unknown command \"" + name
         + "\". Use \"/help\" to list available commands.";
}

} // namespace nb

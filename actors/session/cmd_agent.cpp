// /agent: which of the gateway's agents answers this chat.
#include "actors/session/commands.hpp"

namespace nb {

command_reply cmd_agent(command_context& ctx) {
  std::string out = "🤖 Agent: " + ctx.agent;
  if (!ctx.agent_name.empty())
    out += " (" + ctx.agent_name + ")";
  if (!ctx.model.empty())
    out += "\nModel: " + ctx.model;
  out += "\nWorkspace: " + ctx.workspace;
  out += "\nSession: " + ctx.session_key;
  return {out};
}

} // namespace nb

// /goal <task>: the turn goes on to the model as a sustained-goal request,
// which may call create_goal (the session runs it; see session_goal.cpp).
#include "actors/session/commands.hpp"

namespace nb {

command_reply cmd_goal(command_context& ctx) {
  if (ctx.args.empty())
    return {"Usage: /goal <long-running task description>"};
  if (ctx.busy)
    return {"A task is already running for this chat. Use `/stop` first, "
            "then send `/goal <long-running task description>` again."};
  return {"", command_action::goal};
}

} // namespace nb

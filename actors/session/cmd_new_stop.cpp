// /new and /stop: the session does the work (see session.cpp); the
// commands only say which action to take.
#include "actors/session/commands.hpp"

namespace nb {

command_reply cmd_new(command_context&) {
  return {"New session started.", command_action::new_session};
}

command_reply cmd_stop(command_context& ctx) {
  // The count is filled in by the session, which knows what it stopped.
  if (ctx.active_tasks == 0)
    return {"No active task to stop.", command_action::reply};
  return {"", command_action::stop};
}

} // namespace nb

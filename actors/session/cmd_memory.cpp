// /memory <query>: the agent's memories that match, ranked, with their ids,
// sources and dates. The session searches before this runs (session_recall).
#include "actors/session/commands.hpp"

namespace nb {

command_reply cmd_memory_search(command_context& ctx) {
  if (ctx.memory_text.empty())
    return {"Usage: /memory <what to look for>"};
  return {ctx.memory_text};
}

} // namespace nb

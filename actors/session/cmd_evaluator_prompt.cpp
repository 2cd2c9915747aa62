// /evaluator-prompt [init]: the notification gate's prompt, from any chat.
// The logic lives with the evaluator; this is its entry in the table.
#include "actors/evaluator/prompt_command.hpp"
#include "actors/session/commands.hpp"

namespace nb {

command_reply cmd_evaluator_prompt(command_context& ctx) {
  return {evaluator_prompt_command(ctx.workspace, ctx.args)};
}

} // namespace nb

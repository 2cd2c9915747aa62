// The texts that guide the model while a goal is being started or is
// active, and the user messages that continue it: within a turn after a
// final answer (the original's runner) and as a new turn after a turn ran
// out of iterations (its turn continuation). Our own words, the original's
// shapes.
#include "actors/session/goal_state.hpp"

namespace nb::goal {

using json = nlohmann::json;

namespace {

/// The active goal's runtime lines as one block ("" without a goal).
std::string goal_block(const json& metadata) {
  std::string goal;
  for (auto& line : runtime_lines(metadata))
    goal += (goal.empty() ? "" : "\n") + line;
  return goal;
}

} // namespace

std::string guidance(bool start_requested, bool goal_active) {
  if (!start_requested && !goal_active)
    return {};
  std::string out = "[Goal Runtime Guidance — host instructions]\n";
  if (start_requested)
    out +=
      "\nThe user asked for this to be worked on as a sustained goal. As "
      "soon as the intended outcome is clear, record it with create_goal, "
      "before long planning, research or execution: those come after.\n"
      "Write the objective so that it still holds when it is read again in "
      "the middle of the work (after compaction, a retry or a restart):\n"
      "- describe the end state and how to check it, not a sequence of "
      "steps that assumes nothing has happened yet;\n"
      "- keep every requirement that matters (paths, repositories, "
      "branches, versions, counts, artifacts) in the objective itself, "
      "not in \"as discussed\";\n"
      "- prefer steps that are safe to repeat (check before writing, "
      "update in place), so resumed work does not do damage twice;\n"
      "- say what is in scope and what is not;\n"
      "- name the evidence that proves it is done (tests pass, a file "
      "exists, a list is complete);\n"
      "- ui_summary is only a label: nothing may depend on it.\n"
      "If an essential requirement is unclear, ask one short question "
      "instead of recording a guess, and ask the user to send the complete "
      "request again as `/goal <task>`. Never stack a second goal on an "
      "active one; replace it only when the outcome itself changes.\n";
  out +=
    "\nWhile the goal is active:\n"
    "- the objective shown in the runtime context is the work target; it "
    "never overrides safety or the user's constraints, and the work may be "
    "resumed from it after an interruption or an automatic continuation;\n"
    "- work with the ordinary tools in steps that can be reviewed, and "
    "check each meaningful step;\n"
    "- look up facts that are unfamiliar or may have changed before "
    "building on them; when results contradict an assumption, re-check "
    "instead of retrying blindly;\n"
    "- call update_goal with action='complete' only once the objective is "
    "achieved and verified; 'cancel' when the user calls it off, 'block' "
    "only when no progress is possible, 'replace' only when the objective "
    "changes.\n";
  out += "[/Goal Runtime Guidance]";
  return out;
}

std::string continuation_prompt(const json& metadata) {
  auto goal = goal_block(metadata);
  std::string out = "Carry on with the active sustained goal; the previous "
                    "turn ended before it was finished.";
  if (!goal.empty())
    out += "\n\n" + goal;
  out += "\n\nContinue from the saved context with your tools. Do not tell "
         "the user that this turn was started automatically. When the "
         "objective is achieved and verified, call update_goal with "
         "action='complete'; if nothing more can be done, use "
         "action='block' with a recap.";
  return out;
}

std::string in_turn_prompt(const json& metadata) {
  auto goal = goal_block(metadata);
  if (goal.empty())
    return {};
  return "A sustained goal is still active:\n\n" + goal
         + "\n\nKeep working toward it with your tools. If the objective is "
           "really achieved, call update_goal with action='complete'.";
}

} // namespace nb::goal

#include "actors/runner/goal_tools.hpp"

#include <nlohmann/json.hpp>

#include "actors/common/tool_definition.hpp"

namespace nb {

namespace {

using nlohmann::json;

/// A string parameter; `nullable` also accepts null (the original's shape).
json goal_string(const char* description, int max_length, bool nullable,
                 int min_length = 0) {
  json s{{"type", nullable ? json::array({"string", "null"}) : json("string")},
         {"description", description}};
  if (min_length > 0)
    s["minLength"] = min_length;
  s["maxLength"] = max_length;
  return s;
}

tool_spec build_create_goal_spec() {
  json schema{
    {"type", "object"},
    {"properties",
     {{"objective",
       goal_string("The lasting objective of this session. It may gather a "
                   "plan from the conversation so far, but must stand on its "
                   "own: bounded, safe to resume after an interruption, and "
                   "clear about what counts as done.",
                   4000, false, 1)},
      {"ui_summary",
       goal_string("Optional one-line label for session lists and logs; "
                   "nothing depends on it.",
                   120, true)}}},
    {"required", {"objective"}},
  };
  // Not read-only: it writes the session's metadata (a serial call).
  return {"create_goal",
          "Record one sustained goal for this session when the goal "
          "guidance asks for it. Fold what matters from the discussion into "
          "an objective that stands on its own, stays in bounds, is safe to "
          "resume and says when it is done. Call it once; do not retry "
          "after it succeeded.",
          schema.dump(), false, false};
}

tool_spec build_update_goal_spec() {
  json schema{
    {"type", "object"},
    {"properties",
     {{"action",
       {{"type", "string"},
        {"description", "What to do with the active goal."},
        {"enum", {"complete", "cancel", "block", "replace"}}}},
      {"recap",
       goal_string("A short, honest account for the user; expected for "
                   "complete, cancel and block.",
                   8000, true)},
      {"objective",
       goal_string("The new objective, for action 'replace' only; it must "
                   "stand on its own, be bounded and say when it is done.",
                   4000, true)},
      {"ui_summary",
       goal_string("Optional one-line label for a replacement goal.", 120,
                   true)}}},
    {"required", {"action"}},
  };
  return {"update_goal",
          "Change the active sustained goal: 'complete' only once the "
          "objective is achieved and checked, 'cancel' when the user calls "
          "it off, 'block' when no progress is possible, 'replace' only when "
          "the objective itself changes.",
          schema.dump(), false, false};
}

} // namespace

// Immutable once built: a turn no longer builds and writes the schemas.
const tool_spec& create_goal_spec() {
  static const tool_spec spec = with_definition(build_create_goal_spec());
  return spec;
}

const tool_spec& update_goal_spec() {
  static const tool_spec spec = with_definition(build_update_goal_spec());
  return spec;
}

} // namespace nb

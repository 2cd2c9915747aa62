#include "actors/runner/spawn_tool.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "actors/common/tool_definition.hpp"

namespace nb {

namespace {

tool_spec build_spawn_tool_spec() {
  using nlohmann::json;
  json schema = {
    {"type", "object"},
    {"properties",
     {{"task",
       {{"type", "string"},
        {"description", "Everything the subagent needs to know to do the "
                        "job on its own: goal, files, constraints, and what "
                        "to report back"}}},
      {"label",
       {{"type", "string"},
        {"description", "A short name for the task, shown to the user"}}},
      {"temperature",
       {{"type", "number"}, {"minimum", 0}, {"maximum", 2},
        {"description", "Sampling temperature for the subagent (default: "
                        "the agent's)"}}},
      {"wait",
       {{"type", "boolean"}, {"default", false},
        {"description", "true: wait here for the result; false (default): "
                        "run in the background and report back later"}}}}},
    {"required", {"task"}},
    {"additionalProperties", false},
  };
  return {"spawn",
          "Hand a self-contained task to a subagent that works on it with "
          "its own context and the file, shell and web tools (it cannot "
          "message the user or start subagents). By default it runs in the "
          "background while you carry on, and its result comes back to "
          "this conversation when it is done; use wait=true to get the "
          "result as this tool's output instead.",
          schema.dump(), false, false};
}

} // namespace

const tool_spec& spawn_tool_spec() {
  // Immutable once built: a turn no longer builds and writes the schema.
  static const tool_spec spec = with_definition(build_spawn_tool_spec());
  return spec;
}

tool_spec send_to_agent_spec(const std::vector<std::string>& targets) {
  using nlohmann::json;
  std::string names;
  for (const auto& t : targets)
    names += (names.empty() ? "" : ", ") + t;
  json schema = {
    {"type", "object"},
    {"properties",
     {{"agent",
       {{"type", "string"},
        {"enum", targets},
        {"description", "The id of the agent to ask"}}},
      {"message",
       {{"type", "string"},
        {"description", "What to ask or tell it; it does not see this "
                        "conversation, so include what it needs"}}}}},
    {"required", {"agent", "message"}},
    {"additionalProperties", false},
  };
  return {"send_to_agent",
          "Ask another agent of this gateway (" + names + ") and wait for "
          "its answer, which comes back as this tool's output. It works in "
          "its own workspace with its own tools and memory.",
          schema.dump(), false, false};
}

std::vector<tool_spec> scoped_specs(std::vector<tool_spec> specs,
                                    const std::vector<std::string>& allowed) {
  if (allowed.empty())
    return specs;
  specs.erase(std::remove_if(specs.begin(), specs.end(),
                             [&](const tool_spec& s) {
                               return std::find(allowed.begin(), allowed.end(),
                                                s.name)
                                      == allowed.end();
                             }),
              specs.end());
  return specs;
}

tool_result out_of_scope(const tool_call& call,
                         const std::vector<tool_spec>& specs) {
  std::string names;
  for (auto& s : specs)
    names += (names.empty() ? "" : ", ") + s.name;
  tool_result r;
  r.call_id = call.id;
  r.name = call.name;
  r.is_error = true;
  r.content = "Error: Tool '" + call.name
              + "' is not available in this "
                "run. Available: "
              + (names.empty() ? "(none)" : names) + tool_error_hint;
  return r;
}

tool_result not_permitted(const tool_call& call) {
  tool_result r;
  r.call_id = call.id;
  r.name = call.name;
  r.is_error = true;
  r.content = "Error: Tool '" + call.name + "' is not available to this agent"
              + tool_error_hint;
  return r;
}

} // namespace nb

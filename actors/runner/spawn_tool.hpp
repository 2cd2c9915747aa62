// The spawn tool as the model sees it, and how a run's tool scope is
// applied. The subagent manager (actors/subagents) does the work; the
// runner only offers the tool and routes its calls there.
#pragma once

#include <string>
#include <vector>

#include "messages/tool.hpp"

namespace nb {

/// The spawn tool's name and schema (task required; label, temperature,
/// wait optional). Built once: every turn offers the same.
const tool_spec& spawn_tool_spec();

/// The send_to_agent tool's name and schema; `targets` are the agents the
/// caller may reach (agents.list[].canMessage), listed in the description.
tool_spec send_to_agent_spec(const std::vector<std::string>& targets);

/// Keeps the specs named in `allowed` (all of them when it is empty).
std::vector<tool_spec> scoped_specs(std::vector<tool_spec> specs,
                                    const std::vector<std::string>& allowed);

/// The error result for a call to a tool outside the run's scope.
tool_result out_of_scope(const tool_call& call,
                         const std::vector<tool_spec>& specs);

/// A call to one of the runner's own tools that the agent's tools.allow /
/// tools.deny rule out: refused as the tools front refuses its own.
tool_result not_permitted(const tool_call& call);

} // namespace nb

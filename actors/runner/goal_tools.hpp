// create_goal and update_goal as the model sees them (the original's names
// and schemas). The session owns the goal state, so the runner offers
// these two tools to main-agent turns only (never to a subagent) and hands
// their calls to its session.
#pragma once

#include <string>

#include "messages/tool.hpp"

namespace nb {

/// The two tools' specs, built once: every turn offers the same.
const tool_spec& create_goal_spec();
const tool_spec& update_goal_spec();

/// Whether `name` is one of the two goal tools.
inline bool is_goal_tool(const std::string& name) {
  return name == "create_goal" || name == "update_goal";
}

} // namespace nb

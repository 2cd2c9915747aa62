// The agents a router serves besides "main": each one's session settings
// and the settings its tools are made from (its workspace is their sandbox
// root), plus the bindings that pick an agent for unstamped messages.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "actors/workspace/workspace.hpp"
#include "config/settings.hpp"

namespace nb {

struct agent_slot {
  session_config cfg; ///< cfg.agent is the id
  workspace_config files; ///< its workspace actor's settings
  /// The settings as this agent sees them (settings::for_agent).
  std::shared_ptr<const settings> view;
};

struct agent_plan {
  std::map<std::string, agent_slot> agents; ///< agents.list, by id
  std::vector<agent_binding> bindings;
};

/// The plan for `cfg`'s agents.list (empty for a single-agent config);
/// `base` is main's session config, whose process-wide values they share.
agent_plan make_agent_plan(const settings& cfg, const session_config& base);

} // namespace nb

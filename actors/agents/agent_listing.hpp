// What `nanobot agents list` prints and what /agent answers: the agents
// with their workspaces and models, and the bindings in precedence order.
#pragma once

#include <string>

#include "config/settings.hpp"

namespace nb {

/// One line per agent ("id  name  model  workspace"), then the bindings.
std::string agents_listing(const settings& cfg);

/// "work (Work assistant), model x, workspace /w" for /agent.
std::string agent_summary(const settings& cfg, const std::string& id);

/// A binding as the user wrote it: "telegram chatId=42 -> work".
std::string describe_binding(const agent_binding& b);

} // namespace nb

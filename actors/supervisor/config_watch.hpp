// The gateway's watch on its config.json: a hand edit (or another program's)
// takes effect as a save from the WebUI does — the provider and tools
// settings swap for the next turn, running turns keep what they started with
// — as the original gateway re-reads its configuration when the file
// changes. A change that does not load is logged with its reason and the
// running settings stay. Channels, agents and ports still need a restart,
// as in the original.
#pragma once

#include <chrono>
#include <string>

#include <caf/fwd.hpp>

#include "messages/provider_admin.hpp"

namespace nb {

/// How often the file's stamp (inode, size, modification time) is read;
/// each look runs on a short-lived thread of its own (a stat is file I/O:
/// never on a scheduler thread), so an idle gateway holds no thread for it.
inline constexpr std::chrono::milliseconds config_watch_interval{1000};

/// Watches `config_path` and hands a changed file's text to `supervisor`
/// (provider_config, then tools_config with the tools' side files read).
/// A file written since the process began (it read its settings after
/// that) is handed on at the first look.
caf::actor spawn_config_watch(caf::actor_system& sys,
                              supervisor_admin_actor supervisor,
                              std::string config_path,
                              std::chrono::milliseconds interval
                              = config_watch_interval);

} // namespace nb

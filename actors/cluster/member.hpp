// `nanobot node --role agent|tools`: the process around a node actor.
#pragma once

#include <csignal>
#include <string>

#include "config/cluster_config.hpp"
#include "config/settings.hpp"

namespace nb {

/// Runs an agent or tools node until SIGINT/SIGTERM (already blocked by the
/// caller and waited for on `signals`). Returns the process exit code;
/// configuration problems are printed naming the key.
int run_member_node(const settings& cfg, const cluster_settings& cluster,
                    const std::string& role, const sigset_t& signals);

struct endpoint;

/// The node id: cluster.nodeId, or "<role>@<listen>" when unset.
std::string node_id_for(const cluster_settings& cluster,
                        const std::string& role, const endpoint& listen);

} // namespace nb

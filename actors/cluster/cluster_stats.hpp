// /stats and /metrics of a gateway node: the gateway's own figures plus one
// entry per cluster node (role, address, up/down, actors, sessions, mailbox,
// RSS, uptime). It stands in for the stats actor in front of the HTTP server,
// so the HTTP code and the stats actor stay cluster-agnostic.
#pragma once

#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "messages/cluster.hpp"

namespace nb {

/// Merges `nodes` into the stats JSON document `json_text` (key "nodes").
std::string merge_nodes_json(const std::string& json_text,
                             const std::vector<node_status>& nodes);

/// Appends the nanobot_node_* families for `nodes` to Prometheus text.
std::string append_nodes_prometheus(std::string text,
                                    const std::vector<node_status>& nodes);

/// Forwards samples to `stats`; answers stats requests with its figures
/// and the front's cluster status.
stats_actor spawn_cluster_stats(caf::actor_system& sys, stats_actor stats,
                                cluster_front_actor front);

} // namespace nb

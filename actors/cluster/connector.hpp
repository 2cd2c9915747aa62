// Finds the gateway: a detached actor (its own thread, because connecting
// blocks) that tries each configured peer in turn.
#pragma once

#include <vector>

#include <caf/typed_actor.hpp>

#include "actors/cluster/net.hpp"
#include "messages/cluster.hpp"

namespace nb {

using connector_actor = caf::typed_actor<
  caf::replies_to<connect_atom>::with<cluster_front_actor>>;

/// Answers connect_atom with the first peer's front that accepts, or an
/// error naming every peer and the last reason.
connector_actor spawn_connector(caf::actor_system& sys,
                                std::vector<endpoint> peers, bool tls);

} // namespace nb

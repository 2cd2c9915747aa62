// The Mochat outbound side: the REST send calls in a detached actor.
#pragma once

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/mochat/mochat_config.hpp"

namespace nb::mochat {

/// Spawns the sender detached. Final replies and progress lines go out as
/// text through sessions/send or groups/panels/send (a panel's groupId as
/// its last inbound message named it); stream deltas are not shown (a
/// Mochat message cannot be edited). 429s are waited out; other failures
/// go back to the manager, which retries.
chan::sender_actor spawn_sender(caf::actor_system& sys, mochat_config cfg);

} // namespace nb::mochat

// The Discord outbound side: REST POST /channels/{id}/messages in a
// detached actor.
#pragma once

#include "actors/channels/discord/discord_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::discord {

/// Spawns the sender detached. Final replies and progress lines are posted
/// in pieces of at most 2 000 characters to the chat's channel (a thread's
/// own id for thread sessions); a 429's retry_after (up to 20 s) is waited
/// out and the piece tried again; stream deltas are not shown (Discord gets
/// the whole answer).
chan::sender_actor spawn_sender(caf::actor_system& sys, discord_config cfg);

} // namespace nb::discord

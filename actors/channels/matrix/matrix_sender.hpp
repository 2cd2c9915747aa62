// The Matrix outbound side: PUT /rooms/{id}/send/m.room.message/{txnId}
// in a detached actor.
#pragma once

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/matrix/matrix_config.hpp"

namespace nb::matrix {

/// Spawns the sender detached. Final replies (m.text) and progress lines
/// (m.notice) carry the Markdown as body and its HTML as formatted_body,
/// in pieces of at most 16 000 bytes. The transaction id is derived from
/// the message, so a retry after a lost answer is the same transaction
/// (the homeserver keeps one event) while a later identical message is a
/// new one. 429 retry_after_ms (up to 20 s) is waited out.
chan::sender_actor spawn_sender(caf::actor_system& sys, matrix_config cfg);

} // namespace nb::matrix

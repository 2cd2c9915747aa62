// The official QQ bot's outbound side: /v2/users/{openid}/messages and
// /v2/groups/{group_openid}/messages in a detached actor.
#pragma once

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/qq/qq_config.hpp"

namespace nb::qq {

/// Spawns the sender detached. It learns from the inbound messages it sees
/// which chats are groups and which message each answers; final replies
/// and progress lines are posted as replies to it (msg_id, msg_seq
/// counting up from 2 per msg_id: the ack took 1), plain or markdown by
/// msgFormat. A 429 is waited out (up to 20 s); other failures go back to
/// the manager. Stream deltas are not shown. Attachments (metadata
/// "media") follow the words as rich media (qq_media.hpp), each with the
/// next msg_seq; one that cannot go is logged and noted in the chat as
/// "[Attachment send failed: <name>]", as the original does.
chan::sender_actor spawn_sender(caf::actor_system& sys, qq_config cfg);

} // namespace nb::qq

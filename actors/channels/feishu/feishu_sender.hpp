// The Feishu outbound side: im/v1 messages in a detached actor.
#pragma once

#include <string>

#include "actors/channels/feishu/feishu_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::feishu {

/// Spawns the sender detached. Final replies and progress lines go out as
/// "text", or as an "interactive" card with a markdown element when they
/// carry Markdown; to a chat_id ("oc_...") or a user's open_id. With
/// replyToMessage (or inside a topic) they answer the last message of their
/// session through the reply API, in a thread for groups with
/// replyToMessage. Rate-limit answers are waited out. Stream deltas go
/// into a CardKit streaming card (feishu_stream.hpp). Attachments (metadata "media") follow the words: files uploaded
/// and sent by their keys (see feishu_media.hpp), links added to the
/// words; one that is missing, too big or refused is logged and skipped.
chan::sender_actor spawn_sender(caf::actor_system& sys, feishu_config cfg);

/// "text" or "interactive", and the content string for it.
std::pair<std::string, std::string> render(const std::string& markdown);

} // namespace nb::feishu

// The NapCat outbound side: send_private_msg / send_group_msg actions over
// the link's WebSocket, in a detached actor.
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/napcat/action_line.hpp"
#include "actors/channels/napcat/napcat_config.hpp"

namespace nb::napcat {

/// Spawns the sender detached. Final replies and progress lines go to
/// "private:<user>" or "group:<group>" as a text segment; ok only once
/// the action's answer (matched by echo) says status "ok" and retcode 0.
/// No connection, a lost answer or a refusal is an error for the manager
/// to retry. Stream deltas are not shown (QQ gets the whole answer).
/// Attachments (metadata "media") go as segments (napcat_media.hpp):
/// pictures with the words, sound, video and files each alone after them.
chan::sender_actor spawn_sender(caf::actor_system& sys, napcat_config cfg,
                                std::shared_ptr<action_line> line);

/// {"send_group_msg", {"group_id": 123}} for "group:123" (user_id for
/// private); false when `chat_id` is neither.
bool target_of(const std::string& chat_id, std::string& action,
               nlohmann::json& params);

} // namespace nb::napcat

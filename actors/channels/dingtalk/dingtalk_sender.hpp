// The DingTalk outbound side: the robot send APIs in a detached actor.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/dingtalk/dingtalk_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::dingtalk {

/// The request that sends `text` to `chat_id`: path and body. Groups
/// ("group:<openConversationId>") go to /v1.0/robot/groupMessages/send,
/// people to /v1.0/robot/oToMessages/batchSend; robotCode is the
/// clientId; `markdown` picks msgKey sampleMarkdown {title, text}, else
/// sampleText {content}.
std::pair<std::string, nlohmann::json>
send_request(const dingtalk_config& cfg, const std::string& chat_id,
             const std::string& text, bool markdown);

/// The same for any robot message: msgKey and its msgParam object.
std::pair<std::string, nlohmann::json>
robot_request(const dingtalk_config& cfg, const std::string& chat_id,
              const std::string& msg_key, const nlohmann::json& param);

/// Spawns the sender detached. Final replies go out as Markdown, progress
/// lines as plain text (stream deltas are not shown: DingTalk cannot edit
/// a robot message). A throttling answer (HTTP 429, a flow-controlled
/// user) is waited out up to 20 s; other failures go back to the manager.
/// Attachments (metadata "media") follow the words (dingtalk_media.hpp);
/// one that cannot go is logged and noted in the chat as "[Attachment send
/// failed: <name>]", as the original does.
chan::sender_actor spawn_sender(caf::actor_system& sys, dingtalk_config cfg);

} // namespace nb::dingtalk

// DingTalk Stream mode on the wire, as pure functions: the frames the
// WebSocket carries, their acknowledgements, and a robot message callback
// turned into what the channel manager needs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/channels/dingtalk/dingtalk_config.hpp"
#include "messages/chat.hpp"

namespace nb::dingtalk {

/// The topic of robot messages (subscribed as a CALLBACK).
inline constexpr const char* bot_topic = "/v1.0/im/bot/messages/get";

/// One downstream frame: {specVersion, type, headers{messageId, topic,
/// contentType, time, ...}, data} where data is JSON text.
struct stream_frame {
  std::string type; ///< SYSTEM | EVENT | CALLBACK
  std::string topic;
  std::string message_id;
  std::string data; ///< as sent (JSON text)
  nlohmann::json headers = nlohmann::json::object();
};

/// Reads a frame; nullopt with `why` when the text is not one.
std::optional<stream_frame> read_frame(const std::string& text,
                                       std::string& why);

/// The acknowledgement of `f`: {code:200, headers:{contentType, messageId},
/// message:"OK", data}. EVENTs get {"status":"SUCCESS"}, CALLBACKs their
/// own data back (as the SDKs do).
std::string ack_frame(const stream_frame& f);

/// The answer to a SYSTEM ping: the same headers and data, code 200.
std::string pong_frame(const stream_frame& f);

/// A file the message refers to (downloaded through its downloadCode).
struct media_item {
  std::string kind; ///< image | file | audio | video
  std::string download_code;
  std::string file_name; ///< as the user named it ("" for pictures)
};

/// A robot message callback, read.
struct bot_message {
  inbound_msg msg;
  std::vector<media_item> media;
  bool is_group = false;
  std::string sender_name;
};

/// Reads a robot message (`data` of a bot_topic CALLBACK): text, richText,
/// picture, file, audio (its recognition) and video. Private chats
/// (conversationType "1") have the sender's staff id as chat id, groups
/// "group:<conversationId>" (with group_user_isolation a session per
/// sender). Metadata: _message_id (msgId), _is_group, _mentioned
/// (isInAtList; always true in private chats), sender_name. nullopt with
/// `why` for malformed or empty messages ("malformed ..." when broken).
std::optional<bot_message> read_bot_message(const std::string& data,
                                            const dingtalk_config& cfg,
                                            std::string& why);

} // namespace nb::dingtalk

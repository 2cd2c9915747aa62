// An im.message.receive_v1 event (schema 2.0) turned into what the channel
// manager needs: text, mentions, session key, the files to fetch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"

namespace nb::feishu {

/// A file of the message, fetched through the message resources API.
struct media_ref {
  std::string kind;      ///< image | file | audio | media
  std::string key;       ///< image_key or file_key
  std::string file_name; ///< as the sender named it ("" for images)
};

struct parsed_event {
  std::optional<inbound_msg> msg; ///< nullopt: nothing to hand on (`why`)
  std::vector<media_ref> media;
  std::string message_id;
  std::string why;
};

/// What decides the session key and the mention flag.
struct event_context {
  std::string channel = "feishu"; ///< the channel's name
  std::string bot_open_id;        ///< "" when bot/v3/info was unavailable
  bool topic_isolation = true;
};

/// Reads one event payload. Other event types, bots' own messages and
/// incomplete events give no message (`why` starts with "malformed" for
/// payloads that are not events at all). A direct chat answers to the
/// sender's open_id; a group to its chat_id, and with topic isolation each
/// topic is the session "<channel>:<chat_id>:<root_id or message_id>".
parsed_event parse_event(const nlohmann::json& payload,
                         const event_context& ctx);

/// Text and image keys of a "post" (rich text) content, in any of its
/// three shapes (direct, per locale, wrapped in "post").
std::string post_text(const nlohmann::json& content,
                      std::vector<std::string>& image_keys);

} // namespace nb::feishu

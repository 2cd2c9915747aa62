// One getUpdates entry turned into what the channel manager needs: the
// inbound message with its group/mention metadata, and the files to fetch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"

namespace nb::telegram {

/// The bot itself, from getMe.
struct bot_identity {
  int64_t id = 0;
  std::string username;
};

/// A photo or document to download before handing the message on.
struct media_ref {
  std::string file_id;
  std::string unique_id;
  std::string kind; ///< "image" or "file"
  std::string file_name;
  int64_t size = 0;
};

struct parsed_update {
  std::optional<int64_t> update_id; ///< absent: not an update at all
  std::optional<inbound_msg> msg;   ///< absent: nothing for the agent
  std::vector<media_ref> media;
  std::string skipped; ///< why msg is absent (for the log)
};

/// Reads one update. Only "message" updates with text, a caption, a photo
/// or a document become messages; the sender id is the user's numeric id,
/// the chat id the chat's. Forum topics get session key
/// "<channel>:<chat>:topic:<thread>".
parsed_update parse_update(const nlohmann::json& update,
                           const bot_identity& me,
                           const std::string& channel);

/// The message_thread_id encoded in a topic session key, or 0.
int64_t topic_of(const std::string& session_key);

} // namespace nb::telegram

// OneBot v11 frames from NapCat turned into what the channel manager needs:
// message events (private and group, with text/at/image/reply segments)
// and the group_increase notice. Pure: no I/O.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/channels/napcat/napcat_config.hpp"
#include "messages/chat.hpp"

namespace nb::napcat {

/// What the adapter knows about its QQ account.
struct onebot_view {
  std::string self_id;                  ///< the bot's QQ number ("" unknown)
  std::deque<std::string> bot_messages; ///< ids of recent messages it sent
  void note_sent(const std::string& message_id);
  bool sent_by_bot(const std::string& message_id) const;
};

/// An image segment to download.
struct image_ref {
  std::string url;
  std::string file;   ///< NapCat's name for it (<md5>.png), may be ""
  int64_t size = -1;  ///< file_size when given
};

/// A message event as read.
struct onebot_message {
  inbound_msg msg;           ///< chat_id "private:<user>" or "group:<group>"
  std::string message_id;    ///< "" when the event had none
  std::string group_id;      ///< "" for a private message
  bool addressed = false;    ///< @ of the bot, or a reply to its message
  std::vector<image_ref> images;
};

/// A frame's "echo" when it is an action's answer (no post_type), else "".
std::string answer_echo(const nlohmann::json& frame);

/// Reads a post_type "message" event; nullopt with `why` when it is not a
/// private or group message or has no sender. Group content is
/// "<card or nickname>: <text>" as the original wrote it.
std::optional<onebot_message> read_message(const nlohmann::json& ev,
                                           const onebot_view& view,
                                           const std::string& channel,
                                           std::string& why);

/// Whether a group message is answered: always when addressed, else by the
/// group's rule; `draw` is a uniform random number in [0, 1).
bool should_answer(const napcat_config& cfg, const onebot_message& m,
                   double draw);

/// A group_increase notice as a welcome turn for the group; nullopt for
/// every other notice (or ids missing).
std::optional<inbound_msg> read_welcome(const nlohmann::json& ev,
                                        const std::string& channel);

/// An id (a number or a string) as text; "" when absent or another type.
std::string id_text(const nlohmann::json& obj, const char* key);

} // namespace nb::napcat

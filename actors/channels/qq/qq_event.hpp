// QQ gateway dispatches C2C_MESSAGE_CREATE and GROUP_AT_MESSAGE_CREATE
// turned into what the channel manager needs. Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"

namespace nb::qq {

struct qq_attachment {
  std::string url; ///< "//host/..." is taken as https
  std::string filename;
  std::string content_type;
  int64_t size = -1;
};

struct qq_message {
  inbound_msg msg; ///< chat_id: the user's openid, or the group_openid
  std::string message_id;
  bool group = false;
  std::vector<qq_attachment> attachments;
};

/// Reads a C2C or GROUP_AT message dispatch; nullopt with `why` when the
/// type is another or fields are missing. Group messages always address
/// the bot (QQ delivers only @-messages), so `_mentioned` is true.
std::optional<qq_message> read_message(const std::string& type,
                                       const nlohmann::json& d,
                                       const std::string& channel,
                                       std::string& why);

} // namespace nb::qq

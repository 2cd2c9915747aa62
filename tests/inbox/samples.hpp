// Inbound messages for the inbox tests.
#pragma once

#include <string>

#include "messages/chat.hpp"

namespace nb::test {

/// A Telegram text in `chat`; `platform_id` becomes "_message_id".
inline inbound_msg text_msg(const std::string& chat, const std::string& text,
                            const std::string& platform_id = "") {
  inbound_msg m;
  m.channel = "telegram";
  m.chat_id = chat;
  m.sender_id = "u1";
  m.content = text;
  if (!platform_id.empty())
    m.metadata_json = R"({"_message_id":")" + platform_id + R"("})";
  return m;
}

} // namespace nb::test

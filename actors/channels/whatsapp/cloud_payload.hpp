// The WhatsApp Business Cloud API's wire shapes: a webhook POST's messages
// and statuses turned into values, its signature checked, and Graph API
// errors turned into text a user can act on.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"

namespace nb::whatsapp {

struct cloud_message {
  inbound_msg msg;         ///< chat and sender: the user's number (wa_id)
  std::string message_id;  ///< wamid...
  std::string media_id;    ///< the attachment to fetch, if any
  std::string media_mime;
  std::string media_name;  ///< a document's file name
};

/// A delivery report for something we sent.
struct cloud_status {
  std::string message_id;
  std::string status; ///< sent | delivered | read | failed
  std::string recipient;
  int64_t error_code = 0;
  std::string error_text; ///< for failed ones, as graph_error_text words it
};

struct webhook_batch {
  std::vector<cloud_message> messages;
  std::vector<cloud_status> statuses;
  std::vector<std::string> skipped; ///< what was left out, and why
  std::string malformed;            ///< non-empty: not a webhook payload
};

/// Reads {"object":"whatsapp_business_account","entry":[{"changes":[{
/// "field":"messages","value":{...}}]}]}.
webhook_batch read_webhook(const nlohmann::json& body,
                           const std::string& channel);

/// Whether `header` is "sha256=" and the hex HMAC-SHA256 of `body` under
/// `app_secret` (compared in constant time).
bool signature_valid(const std::string& app_secret, const std::string& body,
                     const std::string& header);

/// The text for a Graph API error object ({"code","message",
/// "error_data":{"details"}}); code 131047 says what the 24-hour window is.
std::string graph_error_text(const nlohmann::json& error);

/// Codes that mean "too many, too fast": wait and try again.
bool rate_limit_code(int64_t code);

} // namespace nb::whatsapp

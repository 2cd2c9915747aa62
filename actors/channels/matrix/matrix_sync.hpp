// The Matrix client-server API pieces the adapter needs: reading a /sync
// answer into inbound messages, and the calls themselves.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "messages/chat.hpp"

namespace nb::matrix {

/// What one /sync answer holds for us.
struct sync_batch {
  std::string next_batch;
  std::vector<inbound_msg> messages;
  std::vector<std::string> invites; ///< room ids we were invited to
  int malformed = 0;                ///< events that could not be read
};

/// Reads a /sync body. m.room.message events of others with a text body
/// become messages; rooms with more than two joined members are groups,
/// `_mentioned` when m.mentions names `me` or the body contains it.
/// nullopt when the body is not a sync answer (no next_batch).
std::optional<sync_batch> read_sync(const nlohmann::json& body,
                                    const std::string& me,
                                    const std::string& channel);

/// Matrix's {"errcode","error","retry_after_ms"} answers, as one call.
struct cs_reply {
  bool ok = false;
  int status = 0;
  nlohmann::json body;
  std::string error;     ///< errcode + error, or the transport's words
  double retry_after_s = 0;
};

/// One client-server API call with the access token; a 429 with
/// retry_after_ms up to 20 s is waited out and tried again (3 calls in
/// all).
cs_reply cs_call(chan::http_endpoint& http, const std::string& token,
                 const std::string& method, const std::string& path,
                 const nlohmann::json& body = nullptr,
                 std::chrono::seconds timeout = std::chrono::seconds(30));

} // namespace nb::matrix

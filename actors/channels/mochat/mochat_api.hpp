// Mochat's REST API as the adapter uses it: POST JSON with the agent's
// X-Claw-Token, answers in the {code, data} envelope, 429s waited out.
// Blocking: one instance per thread (the socket loop, the sender).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/mochat/mochat_config.hpp"

namespace nb::mochat {

struct api_answer {
  nlohmann::json data = nlohmann::json::object(); ///< the envelope's data
  std::string error;      ///< "" when Mochat accepted the call
  bool bad_token = false; ///< refused for the token (HTTP 401/403)
};

/// The headers every claw REST call carries (the agent's X-Claw-Token).
std::map<std::string, std::string> api_headers(const mochat_config& cfg);

/// A call's JSON body as sent (invalid UTF-8 replaced).
std::string api_body(const nlohmann::json& body);

/// A reply read through Mochat's {code, data} envelope.
api_answer read_api_answer(const chan::http_reply& r);

class rest_api {
public:
  explicit rest_api(const mochat_config& cfg);

  /// POSTs `body` to `path` ("/api/claw/sessions/send"...). A 429 is waited
  /// out (its Retry-After, at most 20 s) up to twice. `timeout` bounds the
  /// wait for the answer (a long poll passes its own).
  api_answer post(const std::string& path, const nlohmann::json& body,
                  std::chrono::seconds timeout = std::chrono::seconds(30));
  /// Aborts the call in progress (safe from another thread).
  void abort() { http_.abort(); }

private:
  mochat_config cfg_;
  chan::http_endpoint http_;
};

/// The send call for `text` to `chat_id`: /api/claw/sessions/send
/// {sessionId, content} for sessions, /api/claw/groups/panels/send
/// {panelId, content, groupId} for panels; `reply_to` adds replyTo.
/// The path is "" when the chat id is empty.
std::pair<std::string, nlohmann::json>
send_request(const std::string& chat_id, const std::string& text,
             const std::string& group_id, const std::string& reply_to);

} // namespace nb::mochat

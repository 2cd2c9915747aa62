// The OpenAI chat-completions wire format as the API server speaks it:
// request validation and response bodies. Pure functions, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <string_view>
#include <variant>

#include "messages/model.hpp"

namespace nb::api {

/// What a valid POST /v1/chat/completions asks for.
struct completion_request {
  std::string model;   ///< as sent ("" when absent); only echoed
  std::string content; ///< text of the last user message
  bool stream = false;
  std::string chat_id = "default"; ///< from session_id
};

/// A refusal in OpenAI's error shape.
struct api_error {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
};

/// Largest request body accepted (413 beyond).
inline constexpr size_t max_body_bytes = 1 << 20;

/// What an empty final answer is replaced with (nanobot's wording).
inline constexpr const char* empty_answer
  = "I completed the tool steps but couldn't produce a final answer. "
    "Please try again or narrow the task.";

/// Validates a request body. Takes the last message with role "user"; its
/// content is a string or a list of {"type":"text","text"} parts (joined
/// with spaces). session_id: 1-128 characters of [A-Za-z0-9_.:-].
std::variant<completion_request, api_error>
parse_completion_request(std::string_view body);

/// {"error":{"message","type","code":status}}
std::string error_body(const api_error& err);

/// "chatcmpl-" and 12 random hex digits, as nanobot does.
std::string new_completion_id();

/// The non-streamed chat.completion object.
std::string completion_body(const std::string& id, int64_t created,
                            const std::string& model,
                            const std::string& content,
                            const token_usage& usage);

/// "data: {chat.completion.chunk}\n\n" frames: the assistant role, one
/// piece of content, and the closing frame with finish_reason "stop".
std::string role_frame(const std::string& id, int64_t created,
                       const std::string& model);
std::string content_frame(const std::string& id, int64_t created,
                          const std::string& model, const std::string& text);
std::string stop_frame(const std::string& id, int64_t created,
                       const std::string& model);
inline constexpr std::string_view done_frame = "data: [DONE]\n\n";
/// "data: {"error":{...}}\n\n": a failure after the stream began.
std::string error_frame(const api_error& err);
/// ": text\n\n", an SSE comment (progress lines, keep-alive).
std::string comment_frame(std::string_view text);

/// GET /v1/models: the configured model as the only entry.
std::string models_body(const std::vector<std::string>& models);

/// Token usage from an outbound message's metadata ({"usage":{...}}),
/// zeros when absent or malformed.
token_usage usage_from_metadata(const std::string& metadata_json);

/// True when an Authorization header is "Bearer <key>" (scheme in any
/// case). The key comparison takes the same time wherever it differs.
bool bearer_matches(std::string_view header, std::string_view key);

} // namespace nb::api

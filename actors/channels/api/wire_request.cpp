// Validating POST /v1/chat/completions bodies, and the bearer check.
#include "actors/channels/api/wire.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "actors/common/json_locate.hpp"
#include "actors/common/utf8.hpp"

namespace nb::api {

namespace {

using json = nlohmann::json;

api_error bad(std::string message) {
  return {400, std::move(message), "invalid_request_error"};
}

bool valid_session_id(const std::string& s) {
  if (s.empty() || s.size() > 128)
    return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
  });
}

/// The text of a message's content, or an error naming what is wrong.
std::variant<std::string, api_error> content_text(const json& content) {
  if (content.is_string())
    return content.get<std::string>();
  if (!content.is_array())
    return bad("messages[].content must be a string or a list of content "
               "parts");
  std::string text;
  for (const auto& part : content) {
    if (!part.is_object() || !part.contains("type"))
      return bad("each content part must be an object with a \"type\"");
    if (part["type"] != "text")
      return bad("only content parts of type \"text\" are supported, got "
                 + part["type"].dump());
    if (!part.contains("text") || !part["text"].is_string())
      return bad("a text content part needs a string \"text\"");
    if (!text.empty())
      text += ' ';
    text += part["text"].get<std::string>();
  }
  return text;
}

} // namespace

std::variant<completion_request, api_error>
parse_completion_request(std::string_view body) {
  // The JSON parser would refuse it too, but only with a byte offset; the
  // client is told which field holds the bad bytes.
  if (auto at = first_invalid_utf8(body))
    return bad("invalid UTF-8 in " + json_path_at(body, *at) + " (byte "
               + std::to_string(*at) + " of the request body)");
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::exception& e) {
    return bad(std::string{"request body is not valid JSON: "} + e.what());
  }
  if (!doc.is_object())
    return bad("request body must be a JSON object");
  completion_request req;
  if (doc.contains("model") && !doc["model"].is_null()) {
    if (!doc["model"].is_string())
      return bad("\"model\" must be a string");
    req.model = doc["model"].get<std::string>();
  }
  if (doc.contains("stream") && !doc["stream"].is_null()) {
    if (!doc["stream"].is_boolean())
      return bad("\"stream\" must be a boolean");
    req.stream = doc["stream"].get<bool>();
  }
  if (doc.contains("session_id") && !doc["session_id"].is_null()) {
    const auto& sid = doc["session_id"];
    if (!sid.is_string() || !valid_session_id(sid.get<std::string>()))
      return bad("\"session_id\" must be 1-128 characters of A-Z a-z 0-9 "
                 "_ . : -");
    req.chat_id = sid.get<std::string>();
  }
  if (!doc.contains("messages"))
    return bad("\"messages\" is required");
  const auto& messages = doc["messages"];
  if (!messages.is_array() || messages.empty())
    return bad("\"messages\" must be a non-empty array");
  const json* last_user = nullptr;
  for (const auto& m : messages) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return bad("each message must be an object with a string \"role\"");
    if (m["role"] == "user")
      last_user = &m;
  }
  if (last_user == nullptr)
    return bad("\"messages\" contains no message with role \"user\"");
  if (!last_user->contains("content"))
    return bad("the user message has no \"content\"");
  auto text = content_text((*last_user)["content"]);
  if (auto err = std::get_if<api_error>(&text))
    return *err;
  req.content = std::get<std::string>(std::move(text));
  if (req.content.find_first_not_of(" \t\r\n") == std::string::npos)
    return bad("the user message content is empty");
  return req;
}

bool bearer_matches(std::string_view header, std::string_view key) {
  constexpr std::string_view scheme = "bearer ";
  if (header.size() < scheme.size())
    return false;
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i])
      return false;
  auto given = header.substr(scheme.size());
  while (!given.empty() && given.front() == ' ')
    given.remove_prefix(1);
  while (!given.empty() && given.back() == ' ')
    given.remove_suffix(1);
  // Touch every byte of the key, whatever the given one holds, so the time
  // taken does not reveal how long a matching prefix was.
  unsigned diff = given.size() == key.size() ? 0u : 1u;
  for (size_t i = 0; i < key.size(); ++i) {
    auto g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0u;
    diff |= g ^ static_cast<unsigned char>(key[i]);
  }
  return diff == 0 && !key.empty();
}

} // namespace nb::api

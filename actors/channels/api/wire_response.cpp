// Response bodies and SSE frames in OpenAI's chat-completions shape.
#include "actors/channels/api/wire.hpp"

#include <random>

#include <nlohmann/json.hpp>

namespace nb::api {

namespace {

using json = nlohmann::json;

/// Model output and error texts are not guaranteed to be UTF-8; a bad byte
/// becomes U+FFFD instead of an exception halfway through a response.
std::string text_of(const json& doc) {
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string frame(const json& payload) {
  return "data: " + text_of(payload) + "\n\n";
}

json chunk(const std::string& id, int64_t created, const std::string& model,
           json delta, json finish_reason) {
  return {{"id", id},
          {"object", "chat.completion.chunk"},
          {"created", created},
          {"model", model},
          {"choices",
           json::array({{{"index", 0},
                         {"delta", std::move(delta)},
                         {"finish_reason", std::move(finish_reason)}}})}};
}

} // namespace

std::string error_body(const api_error& err) {
  return text_of(json{{"error",
               {{"message", err.message},
                {"type", err.type},
                {"code", err.status}}}});
}

std::string new_completion_id() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  static constexpr char hex[] = "0123456789abcdef";
  std::string id = "chatcmpl-";
  for (int i = 0; i < 12; ++i)
    id += hex[gen() & 0xf];
  return id;
}

std::string completion_body(const std::string& id, int64_t created,
                            const std::string& model,
                            const std::string& content,
                            const token_usage& usage) {
  json message = {{"role", "assistant"}, {"content", content}};
  return text_of(json{{"id", id},
              {"object", "chat.completion"},
              {"created", created},
              {"model", model},
              {"choices", json::array({{{"index", 0},
                                        {"message", std::move(message)},
                                        {"finish_reason", "stop"}}})},
              {"usage",
               {{"prompt_tokens", usage.prompt_tokens},
                {"completion_tokens", usage.completion_tokens},
                {"total_tokens", usage.total_tokens}}}});
}

std::string role_frame(const std::string& id, int64_t created,
                       const std::string& model) {
  return frame(chunk(id, created, model,
                     {{"role", "assistant"}, {"content", ""}}, nullptr));
}

std::string content_frame(const std::string& id, int64_t created,
                          const std::string& model, const std::string& text) {
  return frame(chunk(id, created, model, {{"content", text}}, nullptr));
}

std::string stop_frame(const std::string& id, int64_t created,
                       const std::string& model) {
  return frame(chunk(id, created, model, json::object(), "stop"));
}

std::string error_frame(const api_error& err) {
  return "data: " + error_body(err) + "\n\n";
}

std::string comment_frame(std::string_view text) {
  std::string line{text.substr(0, 200)};
  for (auto& c : line)
    if (c == '\n' || c == '\r')
      c = ' ';
  return ": " + line + "\n\n";
}

std::string models_body(const std::vector<std::string>& models) {
  auto data = json::array();
  for (const auto& id : models)
    data.push_back({{"id", id},
                    {"object", "model"},
                    {"created", 0},
                    {"owned_by", "nanobot"}});
  return text_of(json{{"object", "list"}, {"data", std::move(data)}});
}

token_usage usage_from_metadata(const std::string& metadata_json) {
  token_usage u;
  auto doc = json::parse(metadata_json, nullptr, false);
  if (!doc.is_object() || !doc.contains("usage") || !doc["usage"].is_object())
    return u;
  const auto& j = doc["usage"];
  auto field = [&](const char* name) -> int64_t {
    return j.contains(name) && j[name].is_number_integer()
             ? j[name].get<int64_t>()
             : 0;
  };
  u.prompt_tokens = field("prompt_tokens");
  u.completion_tokens = field("completion_tokens");
  u.total_tokens = field("total_tokens");
  return u;
}

} // namespace nb::api

// Response bodies and SSE frames in OpenAI's chat-completions shape.
#include "actors/channels/api/wire.hpp"

#include <random>

#include <nlohmann/json.hpp>

#include "actors/common/json_sax_reader.hpp"

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
  // Written as text in the order the JSON writer puts the keys (sorted):
  // the same bytes, without building a tree for every answer.
  auto quoted = [](const std::string& s) { return text_of(json(s)); };
  std::string out = R"({"choices":[{"finish_reason":"stop","index":0,)"
                    R"("message":{"content":)";
  out += quoted(content);
  out += R"(,"role":"assistant"}}],"created":)";
  out += std::to_string(created);
  out += R"(,"id":)";
  out += quoted(id);
  out += R"(,"model":)";
  out += quoted(model);
  out += R"(,"object":"chat.completion","usage":{"completion_tokens":)";
  out += std::to_string(usage.completion_tokens);
  out += R"(,"prompt_tokens":)";
  out += std::to_string(usage.prompt_tokens);
  out += R"(,"total_tokens":)";
  out += std::to_string(usage.total_tokens);
  out += "}}";
  return out;
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

namespace {

/// Reads the integers of the top-level "usage" object while the metadata
/// is parsed, without building its tree.
struct api_usage_reader : json_sax_reader<api_usage_reader> {
  token_usage usage;
  bool top_object = false;
  bool usage_next = false; ///< the next top-level value is "usage"'s
  int usage_depth = -1;    ///< depth of that object's members while inside
  int64_t* field = nullptr; ///< the usage field the next value sets

  void key_at(int depth, const std::string& k) {
    if (depth == 1)
      usage_next = k == "usage";
    else if (depth == usage_depth)
      field = k == "prompt_tokens"       ? &usage.prompt_tokens
              : k == "completion_tokens" ? &usage.completion_tokens
              : k == "total_tokens"      ? &usage.total_tokens
                                         : nullptr;
  }
  void value_at(int depth, const sax_value& v) {
    if (depth == 0 && v.what == sax_value::kind::object)
      top_object = true;
    if (depth == 1) {
      // A later "usage" replaces an earlier one; one that is not an
      // object counts as none. Leaving the object ends it.
      usage_depth = -1;
      if (usage_next) {
        usage = {};
        if (v.what == sax_value::kind::object)
          usage_depth = 2;
      }
      usage_next = false;
    }
    if (depth == usage_depth && field && v.integer)
      *field = *v.integer;
    field = nullptr;
  }
};

} // namespace

token_usage usage_from_metadata(const std::string& metadata_json) {
  api_usage_reader reader;
  if (!json::sax_parse(metadata_json, &reader) || !reader.top_object)
    return {};
  return reader.usage;
}

} // namespace nb::api

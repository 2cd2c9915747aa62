#include "actors/provider/openai_wire.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <stdexcept>

#include "actors/common/strings.hpp"
#include "actors/provider/wire_json.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

struct too_deep : std::runtime_error {
  too_deep() : std::runtime_error("JSON nested too deeply") {}
};

bool requires_max_completion_tokens(const std::string& model) {
  auto slug = ascii_lower(model.substr(model.rfind('/') + 1));
  if (slug.find("gpt-5") != std::string::npos)
    return true;
  for (auto p : {"o1", "o3", "o4"})
    if (slug == p || slug.starts_with(std::string{p} + "-")
        || slug.starts_with(std::string{p} + "."))
      return true;
  return false;
}

} // namespace

namespace wire {

json parse_bounded(std::string_view text, std::string& why) {
  try {
    return json::parse(text.begin(), text.end(),
                       [](int depth, json::parse_event_t, json&) {
                         if (depth > max_depth)
                           throw too_deep{};
                         return true;
                       });
  } catch (const too_deep& e) {
    why = e.what();
  } catch (const json::exception&) {
    why = "not valid JSON";
  }
  return json{};
}

std::string preview(std::string_view body, size_t limit) {
  // Only the start can show: a large error page is not folded whole.
  auto out = fold_space(body.substr(0, 4 * limit));
  if (out.size() > limit) {
    out.resize(limit);
    out += "...";
  }
  return out;
}

int64_t int_field(const json& obj, const char* key) {
  if (!obj.is_object())
    return 0;
  auto i = obj.find(key);
  if (i == obj.end() || !i->is_number())
    return 0;
  // Token counts and indexes: a float beyond int64 would be undefined to
  // convert, and sums of huge counts would overflow.
  constexpr int64_t limit = int64_t{1} << 53;
  if (i->is_number_unsigned())
    return static_cast<int64_t>(
      std::min<uint64_t>(i->get<uint64_t>(), uint64_t{limit}));
  if (i->is_number_float()) {
    auto d = i->get<double>();
    return d >= static_cast<double>(limit)    ? limit
           : d <= -static_cast<double>(limit) ? -limit
                                              : static_cast<int64_t>(d);
  }
  return std::clamp(i->get<int64_t>(), -limit, limit);
}

std::string string_field(const json& obj, const char* key) {
  if (!obj.is_object())
    return {};
  auto i = obj.find(key);
  return i != obj.end() && i->is_string() ? i->get<std::string>()
                                          : std::string{};
}

std::string content_text(const json& c) {
  if (c.is_string())
    return c.get<std::string>();
  std::string out;
  if (c.is_array())
    for (auto& part : c)
      out += string_field(part, "text");
  return out;
}

token_usage read_usage(const json& u) {
  token_usage out;
  out.prompt_tokens = int_field(u, "prompt_tokens");
  out.completion_tokens = int_field(u, "completion_tokens");
  out.total_tokens = std::max(int_field(u, "total_tokens"),
                              out.prompt_tokens + out.completion_tokens);
  if (u.contains("prompt_tokens_details"))
    out.cached_tokens = int_field(u["prompt_tokens_details"], "cached_tokens");
  if (out.cached_tokens == 0)
    out.cached_tokens = std::max(int_field(u, "cached_tokens"),
                                 int_field(u, "prompt_cache_hit_tokens"));
  return out;
}

std::string arguments_text(const json& a) {
  if (a.is_string())
    return a.get<std::string>();
  if (a.is_null())
    return {};
  return a.dump();
}

std::string error_message(const json& err) {
  if (err.is_string())
    return err.get<std::string>();
  auto msg = string_field(err, "message");
  return msg.empty() ? preview(err.dump()) : msg;
}

} // namespace wire

using namespace wire;

std::string make_tool_call_id() {
  static std::atomic<uint64_t> counter{0};
  auto seed = static_cast<uint64_t>(
    std::chrono::steady_clock::now().time_since_epoch().count());
  auto x = seed ^ (++counter * 0x9E3779B97F4A7C15ull);
  static constexpr char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string id = "call_";
  for (int i = 0; i < 9; ++i, x /= 36)
    id += alnum[x % 36];
  return id;
}

namespace {

/// Whether `text` (our own JSON text) is an array; `empty`, if given, says
/// whether it is an empty one.
bool json_array_text(const std::string& text, bool* empty = nullptr) {
  auto first = text.find_first_not_of(" \t\r\n");
  auto last = text.find_last_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '[' || text[last] != ']')
    return false;
  if (empty)
    *empty = text.find_first_not_of(" \t\r\n", first + 1) == last;
  return true;
}

/// The request's scalar fields: model, token limit, temperature, streaming
/// and the reasoning switches.
json chat_head(const model_request& req, const std::string& model,
               const body_options& opts) {
  json body{{"model", model}};
  bool reasoning_model = requires_max_completion_tokens(model);
  if (req.max_tokens > 0)
    body[reasoning_model ? "max_completion_tokens" : "max_tokens"] =
      req.max_tokens;
  // Reasoning models reject a temperature.
  if (req.temperature >= 0 && !reasoning_model)
    body["temperature"] = req.temperature;
  if (req.stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  apply_openai_reasoning(body, opts.reasoning_effort, opts.thinking_style);
  return body;
}

} // namespace

std::string build_chat_body(const model_request& req, const std::string& model,
                            std::string& error, const body_options& opts) {
  // The messages and tools are JSON texts our runner wrote: spliced in as
  // they are, unless a field must come out of them (Anthropic's thinking
  // blocks) or extraBody merges into them. Parsing and re-serialising the
  // whole history on every call was the turn's largest cost (issue 22).
  bool no_tools = true;
  if (!json_array_text(req.messages_json)) {
    error = "Invalid model request: messages are not a JSON array";
    return {};
  }
  if (!req.tools_json.empty() && !json_array_text(req.tools_json, &no_tools)) {
    error = "Invalid model request: tools are not a JSON array";
    return {};
  }
  if (opts.extra_body.empty()
      && req.messages_json.find("\"thinking_blocks\"") == std::string::npos) {
    auto out = chat_head(req, model, opts)
                 .dump(-1, ' ', false, json::error_handler_t::replace);
    out.pop_back(); // the head's closing brace
    out.reserve(out.size() + req.messages_json.size() + req.tools_json.size()
                + 64);
    out += R"(,"messages":)";
    out += req.messages_json;
    if (!no_tools) {
      out += R"(,"tools":)";
      out += req.tools_json;
      out += R"(,"tool_choice":"auto")";
    }
    out += '}';
    return out;
  }
  std::string why;
  auto messages = parse_bounded(req.messages_json, why);
  if (!messages.is_array()) {
    error = "Invalid model request: messages are not a JSON array";
    return {};
  }
  // Anthropic thinking blocks are for Anthropic; OpenAI-compatible servers
  // may reject unknown message fields.
  for (auto& m : messages)
    if (m.is_object())
      m.erase("thinking_blocks");
  auto body = chat_head(req, model, opts);
  body["messages"] = std::move(messages);
  if (!req.tools_json.empty()) {
    auto tools = parse_bounded(req.tools_json, why);
    if (!tools.is_array()) {
      error = "Invalid model request: tools are not a JSON array";
      return {};
    }
    if (!tools.empty()) {
      body["tools"] = std::move(tools);
      body["tool_choice"] = "auto";
    }
  }
  merge_extra_body(body, opts.extra_body);
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string parse_completion(std::string_view body, model_reply& out) {
  std::string why;
  auto doc = parse_bounded(body, why);
  if (!doc.is_object()) {
    if (!why.empty() && why != "not valid JSON")
      return "Model returned an unusable response: " + why + ".";
    return "Model returned a response that is not a JSON completion: "
           + (body.empty() ? std::string{"(empty body)"} : preview(body));
  }
  if (doc.contains("error") && !doc["error"].is_null())
    return "Model returned an error: " + error_message(doc["error"]);
  auto choices = doc.find("choices");
  if (choices == doc.end() || !choices->is_array() || choices->empty()
      || !(*choices)[0].is_object())
    return "Model returned an empty response (no choices).";
  auto& choice = (*choices)[0];
  auto message = choice.contains("message") ? choice["message"] : json{};
  out.content = message.is_object() && message.contains("content")
                  ? content_text(message["content"])
                  : std::string{};
  out.reasoning_content = string_field(message, "reasoning_content");
  if (out.reasoning_content.empty())
    out.reasoning_content = string_field(message, "reasoning");
  if (message.is_object() && message.contains("tool_calls")
      && message["tool_calls"].is_array()) {
    for (auto& tc : message["tool_calls"]) {
      tool_call call;
      call.id = string_field(tc, "id");
      if (call.id.empty())
        call.id = make_tool_call_id();
      auto fn = tc.is_object() && tc.contains("function") ? tc["function"]
                                                          : json{};
      call.name = string_field(fn, "name");
      if (fn.is_object() && fn.contains("arguments"))
        call.arguments_json = arguments_text(fn["arguments"]);
      out.tool_calls.push_back(std::move(call));
    }
  }
  out.finish_reason = string_field(choice, "finish_reason");
  if (out.finish_reason.empty())
    out.finish_reason = out.tool_calls.empty() ? "stop" : "tool_calls";
  if (doc.contains("usage"))
    out.usage = read_usage(doc["usage"]);
  return {};
}

} // namespace nb

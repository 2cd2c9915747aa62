// OpenAI-shaped history -> Messages API request bodies.
#include "actors/provider/anthropic_wire.hpp"

#include "actors/provider/openai_wire.hpp"
#include "actors/provider/wire_json.hpp"

namespace nb {

namespace {

using json = nlohmann::json;
using namespace wire;

json text_block(std::string text) {
  return {{"type", "text"}, {"text", std::move(text)}};
}

/// "data:image/png;base64,AAAA" -> a base64 source; any other URL is
/// passed by reference.
json image_block(const std::string& url) {
  static constexpr std::string_view marker = ";base64,";
  if (url.starts_with("data:")) {
    auto at = url.find(marker);
    if (at != std::string::npos)
      return {{"type", "image"},
              {"source",
               {{"type", "base64"},
                {"media_type", url.substr(5, at - 5)},
                {"data", url.substr(at + marker.size())}}}};
  }
  return {{"type", "image"}, {"source", {{"type", "url"}, {"url", url}}}};
}

/// OpenAI content (a string, null, or a list of parts) as blocks. Empty
/// text is dropped: the API rejects empty text blocks.
json content_blocks(const json& content) {
  json out = json::array();
  if (content.is_string()) {
    if (!content.get_ref<const std::string&>().empty())
      out.push_back(text_block(content.get<std::string>()));
    return out;
  }
  if (!content.is_array())
    return out;
  for (auto& part : content) {
    if (part.is_string()) {
      if (!part.get_ref<const std::string&>().empty())
        out.push_back(text_block(part.get<std::string>()));
      continue;
    }
    auto type = string_field(part, "type");
    if (type == "text") {
      if (auto t = string_field(part, "text"); !t.empty())
        out.push_back(text_block(std::move(t)));
    } else if (type == "image_url") {
      auto& iu = part["image_url"];
      auto url = iu.is_string() ? iu.get<std::string>()
                                : string_field(iu, "url");
      if (!url.empty())
        out.push_back(image_block(url));
    } else if (type == "image" || type == "document") {
      out.push_back(part); // already in Anthropic form
    }
  }
  return out;
}

/// Tool-call arguments as the object the API wants; text that is not a
/// JSON object becomes {} (the runner already rejected such calls).
json tool_input(const json& arguments) {
  if (arguments.is_object())
    return arguments;
  if (arguments.is_string()) {
    std::string why;
    auto parsed = parse_bounded(arguments.get<std::string>(), why);
    if (parsed.is_object())
      return parsed;
  }
  return json::object();
}

json assistant_blocks(const json& msg) {
  json out = json::array();
  // Thinking first, exactly as the model produced it: the API checks the
  // signatures of replayed thinking.
  if (msg.contains("thinking_blocks") && msg["thinking_blocks"].is_array())
    for (auto& b : msg["thinking_blocks"]) {
      auto type = string_field(b, "type");
      if (type == "thinking" || type == "redacted_thinking")
        out.push_back(b);
    }
  if (msg.contains("content"))
    for (auto& b : content_blocks(msg["content"]))
      if (b["type"] == "text")
        out.push_back(std::move(b));
  if (msg.contains("tool_calls") && msg["tool_calls"].is_array())
    for (auto& tc : msg["tool_calls"]) {
      auto fn = tc.is_object() && tc.contains("function") ? tc["function"]
                                                          : json::object();
      auto name = string_field(fn, "name");
      if (name.empty())
        continue;
      auto id = string_field(tc, "id");
      out.push_back({{"type", "tool_use"},
                     {"id", id.empty() ? make_tool_call_id() : id},
                     {"name", name},
                     {"input", tool_input(fn.is_object() && fn.contains("arguments")
                                            ? fn["arguments"]
                                            : json{})}});
    }
  return out;
}

json tool_result_block(const json& msg) {
  json block{{"type", "tool_result"},
             {"tool_use_id", string_field(msg, "tool_call_id")}};
  json c = msg.contains("content") ? msg["content"] : json{};
  if (c.is_array()) {
    auto blocks = content_blocks(c);
    block["content"] = blocks.empty() ? json("(empty)") : blocks;
  } else {
    auto text = c.is_string() ? c.get<std::string>() : std::string{};
    block["content"] = text.empty() ? "(empty)" : text;
  }
  return block;
}

/// Marks the last block that may carry a cache breakpoint (thinking blocks
/// may not).
void mark_cache(json& blocks) {
  if (!blocks.is_array())
    return;
  for (auto i = blocks.size(); i-- > 0;) {
    auto type = string_field(blocks[i], "type");
    if (type == "thinking" || type == "redacted_thinking")
      continue;
    blocks[i]["cache_control"] = {{"type", "ephemeral"}};
    return;
  }
}

} // namespace

bool to_anthropic_messages(const json& messages, json& system, json& out,
                           std::string& error) {
  if (!messages.is_array()) {
    error = "Invalid model request: messages are not a JSON array";
    return false;
  }
  system = json::array();
  out = json::array();
  auto append = [&out](const std::string& role, json blocks) {
    if (blocks.empty())
      return;
    if (!out.empty() && out.back()["role"] == role) {
      for (auto& b : blocks)
        out.back()["content"].push_back(std::move(b));
      return;
    }
    out.push_back({{"role", role}, {"content", std::move(blocks)}});
  };
  for (auto& msg : messages) {
    auto role = string_field(msg, "role");
    if (role == "system" || role == "developer") {
      for (auto& b : content_blocks(msg.contains("content") ? msg["content"]
                                                            : json{}))
        if (b["type"] == "text")
          system.push_back(std::move(b));
    } else if (role == "assistant") {
      append("assistant", assistant_blocks(msg));
    } else if (role == "tool") {
      append("user", json::array({tool_result_block(msg)}));
    } else if (role == "user") {
      auto blocks = content_blocks(msg.contains("content") ? msg["content"]
                                                           : json{});
      if (blocks.empty())
        blocks.push_back(text_block("(empty)"));
      append("user", std::move(blocks));
    }
  }
  // No prefill: the answer is produced from a user turn.
  while (!out.empty() && out.back()["role"] == "assistant")
    out.erase(out.end() - 1);
  if (out.empty() || out.front()["role"] != "user")
    out.insert(out.begin(),
               json{{"role", "user"},
                    {"content", json::array({text_block(
                                  "(conversation continued)")})}});
  return true;
}

std::string build_anthropic_body(const model_request& req,
                                 const std::string& model, std::string& error,
                                 const body_options& opts) {
  std::string why;
  auto history = parse_bounded(req.messages_json, why);
  json system;
  json messages;
  if (!to_anthropic_messages(history, system, messages, error))
    return {};
  json body{{"model", model},
            {"max_tokens", req.max_tokens > 0 ? req.max_tokens
                                              : anthropic_default_max_tokens}};
  if (!system.empty()) {
    mark_cache(system);
    body["system"] = std::move(system);
  }
  if (messages.size() >= 2)
    mark_cache(messages[messages.size() - 2]["content"]);
  body["messages"] = std::move(messages);
  if (!req.tools_json.empty()) {
    auto tools = parse_bounded(req.tools_json, why);
    if (!tools.is_array()) {
      error = "Invalid model request: tools are not a JSON array";
      return {};
    }
    json defs = json::array();
    for (auto& t : tools) {
      auto fn = t.is_object() && t.contains("function") ? t["function"] : t;
      auto name = string_field(fn, "name");
      if (name.empty())
        continue;
      json def{{"name", name}};
      if (auto d = string_field(fn, "description"); !d.empty())
        def["description"] = d;
      def["input_schema"] = fn.contains("parameters")
                                && fn["parameters"].is_object()
                              ? fn["parameters"]
                              : json{{"type", "object"}, {"properties", json::object()}};
      defs.push_back(std::move(def));
    }
    if (!defs.empty()) {
      mark_cache(defs);
      body["tools"] = std::move(defs);
      body["tool_choice"] = {{"type", "auto"}};
    }
  }
  if (req.temperature >= 0)
    body["temperature"] = req.temperature;
  if (req.stream)
    body["stream"] = true;
  apply_anthropic_reasoning(body, model, opts.reasoning_effort);
  merge_extra_body(body, opts.extra_body);
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace nb

// OpenAI-shaped history -> Responses API request bodies (the original's
// openai_responses/converters.py and _build_responses_body).
#include "actors/provider/responses_wire.hpp"

#include <algorithm>
#include <set>

#include "actors/common/strings.hpp"
#include "actors/provider/request_extras.hpp"
#include "actors/provider/responses_route.hpp"
#include "actors/provider/responses_state.hpp"
#include "actors/provider/wire_json.hpp"

namespace nb {

namespace {

using json = nlohmann::json;
using namespace wire;

json responses_input_text(std::string text) {
  return {{"type", "input_text"}, {"text", std::move(text)}};
}

/// A user turn: text parts as input_text, images as input_image; content
/// with nothing usable becomes one empty text part (the original's way).
json responses_user_item(const json& content) {
  json parts = json::array();
  if (content.is_string()) {
    parts.push_back(responses_input_text(content.get<std::string>()));
  } else if (content.is_array()) {
    for (auto& part : content) {
      auto type = string_field(part, "type");
      if (type == "text") {
        parts.push_back(responses_input_text(string_field(part, "text")));
      } else if (type == "image_url" && part.contains("image_url")) {
        auto& iu = part["image_url"];
        auto url =
          iu.is_string() ? iu.get<std::string>() : string_field(iu, "url");
        if (!url.empty())
          parts.push_back(
            {{"type", "input_image"}, {"image_url", url}, {"detail", "auto"}});
      }
    }
  }
  if (parts.empty())
    parts.push_back(responses_input_text(""));
  return {{"role", "user"}, {"content", std::move(parts)}};
}

/// A tool result: text as it is; a list of text / image parts as
/// input_text / input_image blocks; anything else as JSON text.
json responses_tool_output(const json& content) {
  if (content.is_string())
    return content;
  if (content.is_array() && !content.empty()) {
    json blocks = json::array();
    bool all_known = true;
    for (auto& part : content) {
      auto type = string_field(part, "type");
      if ((type == "text" || type == "input_text") && part.contains("text")
          && part["text"].is_string()) {
        blocks.push_back(responses_input_text(part["text"].get<std::string>()));
      } else if (type == "image_url" || type == "input_image") {
        auto& iu = part.contains("image_url") ? part["image_url"] : part;
        auto url =
          iu.is_string() ? iu.get<std::string>() : string_field(iu, "url");
        if (url.empty()) {
          all_known = false;
          break;
        }
        blocks.push_back(
          {{"type", "input_image"}, {"image_url", url}, {"detail", "auto"}});
      } else {
        all_known = false;
        break;
      }
    }
    if (all_known)
      return blocks;
  }
  if (content.is_null())
    return "";
  return content.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// Arguments replayed as a JSON object text: the Responses API rejects
/// anything else, so text that is not an object becomes "{}".
std::string responses_replay_arguments(const json& arguments) {
  if (arguments.is_object())
    return arguments.dump();
  if (!arguments.is_string())
    return "{}";
  std::string why;
  auto parsed = parse_bounded(arguments.get<std::string>(), why);
  return parsed.is_object() ? parsed.dump() : "{}";
}

/// `id`, or `id_2`, `id_3`, ...: item ids must be unique in one request.
std::string responses_unique_id(std::string id, std::set<std::string>& used) {
  if (used.insert(id).second)
    return id;
  for (int n = 2;; ++n) {
    auto candidate = id + "_" + std::to_string(n);
    if (used.insert(candidate).second)
      return candidate;
  }
}

/// A hosted web search (OpenAI's in extraBody, DeepSeek's by default): it
/// replaces our own web_search function (one search tool for the model),
/// once, and with `sources` (OpenAI) its sources come back with the answer
/// (the original's managed tools).
void responses_manage_hosted_search(json& body, bool sources) {
  if (!body.contains("tools") || !body["tools"].is_array())
    return;
  json kept = json::array();
  bool hosted_seen = false;
  for (auto& tool : body["tools"]) {
    if (wire::string_field(tool, "type") == "function"
        && wire::string_field(tool, "name") == "web_search")
      continue;
    if (responses_hosted_search_tool(tool)) {
      if (hosted_seen)
        continue;
      hosted_seen = true;
    }
    kept.push_back(tool);
  }
  body["tools"] = std::move(kept);
  if (!sources)
    return;
  auto& include = body["include"];
  if (!include.is_array())
    include = json::array();
  if (std::find(include.begin(), include.end(),
                "web_search_call.action.sources")
      == include.end())
    include.push_back("web_search_call.action.sources");
}

/// The original's rule: gpt-5 and the o-series take no temperature, and
/// no model does while it reasons.
bool responses_takes_temperature(const std::string& model,
                                 const std::string& effort) {
  if (!effort.empty() && ascii_lower(effort) != "none")
    return false;
  auto name = ascii_lower(model);
  for (auto token : {"gpt-5", "o1", "o3", "o4"})
    if (name.find(token) != std::string::npos)
      return false;
  return true;
}

} // namespace

void split_responses_call_id(const std::string& id, std::string& call_id,
                             std::string& item_id) {
  item_id.clear();
  if (id.empty()) {
    call_id = "call_0";
    return;
  }
  auto bar = id.find('|');
  call_id = id.substr(0, bar);
  if (bar != std::string::npos)
    item_id = id.substr(bar + 1);
}

bool to_responses_input(const json& messages, std::string& instructions,
                        json& input, std::string& error, bool keep_reasoning) {
  if (!messages.is_array()) {
    error = "Invalid model request: messages are not a JSON array";
    return false;
  }
  input = json::array();
  std::set<std::string> used;
  for (size_t idx = 0; idx < messages.size(); ++idx) {
    auto& msg = messages[idx];
    auto role = string_field(msg, "role");
    auto content =
      msg.is_object() && msg.contains("content") ? msg["content"] : json{};
    if (role == "system") {
      instructions = content_text(content);
    } else if (role == "user") {
      input.push_back(responses_user_item(content));
    } else if (role == "assistant") {
      // DeepSeek reads its own reasoning back as plain text.
      if (auto reasoning = string_field(msg, "reasoning_content");
          keep_reasoning && !reasoning.empty())
        input.push_back(
          {{"type", "reasoning"},
           {"content",
            json::array({{{"type", "output_text"}, {"text", reasoning}}})}});
      auto text = content.is_string() ? content.get<std::string>()
                                      : content_text(content);
      if (!text.empty())
        input.push_back(
          {{"type", "message"},
           {"role", "assistant"},
           {"content",
            json::array({{{"type", "output_text"}, {"text", text}}})},
           {"status", "completed"},
           {"id", responses_unique_id("msg_" + std::to_string(idx), used)}});
      auto calls = msg.contains("tool_calls") ? msg["tool_calls"] : json{};
      if (!calls.is_array())
        continue;
      for (auto& tc : calls) {
        if (!tc.is_object())
          continue;
        auto fn = tc.contains("function") && tc["function"].is_object()
                    ? tc["function"]
                    : json::object();
        std::string call_id, item_id;
        split_responses_call_id(string_field(tc, "id"), call_id, item_id);
        auto id = item_id.empty() ? "fc_" + std::to_string(idx) : item_id;
        input.push_back(
          {{"type", "function_call"},
           {"id", responses_unique_id(id, used)},
           {"call_id", call_id},
           {"name", fn.contains("name") ? fn["name"] : json{}},
           {"arguments", responses_replay_arguments(fn.contains("arguments")
                                                      ? fn["arguments"]
                                                      : json{})}});
      }
    } else if (role == "tool") {
      std::string call_id, item_id;
      split_responses_call_id(string_field(msg, "tool_call_id"), call_id,
                              item_id);
      input.push_back({{"type", "function_call_output"},
                       {"call_id", call_id},
                       {"output", responses_tool_output(content)}});
    }
  }
  return true;
}

json to_responses_tools(const json& tools) {
  json out = json::array();
  if (!tools.is_array())
    return out;
  for (auto& t : tools) {
    if (!t.is_object())
      continue;
    auto fn = string_field(t, "type") == "function" && t.contains("function")
                ? t["function"]
                : t;
    auto name = string_field(fn, "name");
    if (name.empty())
      continue;
    auto params = fn.contains("parameters") && fn["parameters"].is_object()
                    ? fn["parameters"]
                    : json::object();
    out.push_back({{"type", "function"},
                   {"name", name},
                   {"description", string_field(fn, "description")},
                   {"parameters", std::move(params)}});
  }
  return out;
}

std::string build_responses_body(const model_request& req,
                                 const std::string& model, std::string& error,
                                 const body_options& opts) {
  std::string why;
  auto history = parse_bounded(req.messages_json, why);
  std::string instructions;
  json input;
  if (!to_responses_input(history, instructions, input, error, opts.deepseek))
    return {};
  // A saved conversation of this endpoint and model: its exact items, then
  // only the messages since (the instructions still come from the whole
  // transcript). Otherwise the whole transcript, as converted above.
  bool resumed = !opts.conversation_provider.empty()
                 && responses_resume_input(req.conversation,
                                           opts.conversation_provider, model,
                                           input, opts.deepseek);
  json body{{"model", model}};
  if (!instructions.empty())
    body["instructions"] = instructions;
  body["input"] = std::move(input);
  if (req.max_tokens > 0)
    body["max_output_tokens"] = req.max_tokens;
  body["store"] = false;
  body["stream"] = req.stream;
  if (opts.compact_threshold > 0)
    body["context_management"] = json::array(
      {{{"type", "compaction"}, {"compact_threshold", opts.compact_threshold}}});
  auto& effort = opts.reasoning_effort;
  bool warm = responses_takes_temperature(model, effort);
  if (warm && req.temperature >= 0)
    body["temperature"] = req.temperature;
  // Reasoning models: the encrypted reasoning comes back with the answer
  // (nothing is stored server side with store false).
  if (!warm && !opts.deepseek)
    body["include"] = json::array({"reasoning.encrypted_content"});
  if (!effort.empty() && (ascii_lower(effort) != "none" || opts.deepseek))
    body["reasoning"] = {{"effort", effort}};
  if (resumed && ascii_lower(model).find("gpt-5.6") != std::string::npos)
    body["reasoning"]["context"] = "all_turns";
  if (!req.tools_json.empty()) {
    auto tools = parse_bounded(req.tools_json, why);
    if (!tools.is_array()) {
      error = "Invalid model request: tools are not a JSON array";
      return {};
    }
    auto defs = to_responses_tools(tools);
    if (!defs.empty()) {
      body["tools"] = std::move(defs);
      body["tool_choice"] = "auto";
    }
  }
  // The provider's hosted tool, unless extraBody says which tools.
  if (!opts.default_hosted_tool.empty()) {
    auto extra = opts.extra_body.empty()
                   ? json::object()
                   : json::parse(opts.extra_body, nullptr, false);
    if (!extra.is_object() || !extra.contains("tools")) {
      if (!body["tools"].is_array())
        body["tools"] = json::array();
      body["tools"].push_back({{"type", opts.default_hosted_tool}});
    }
  }
  // The user's extraBody last; an `include` list adds to ours.
  json ours_include = body.contains("include") ? body["include"] : json{};
  merge_extra_body(body, opts.extra_body);
  if (ours_include.is_array() && body.contains("include")
      && body["include"].is_array() && body["include"] != ours_include) {
    auto merged = ours_include;
    for (auto& v : body["include"])
      if (std::find(merged.begin(), merged.end(), v) == merged.end())
        merged.push_back(v);
    body["include"] = std::move(merged);
  }
  if (responses_hosted_web_search(opts.extra_body, opts.default_hosted_tool))
    responses_manage_hosted_search(body, !opts.deepseek);
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace nb

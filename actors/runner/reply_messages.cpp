#include "actors/runner/reply_messages.hpp"

namespace nb {

using json = nlohmann::json;

void add_usage(token_usage& into, const token_usage& x) {
  into.prompt_tokens = x.prompt_tokens; // the latest context size, not a sum
  into.completion_tokens += x.completion_tokens;
  into.total_tokens += x.total_tokens;
  into.cached_tokens += x.cached_tokens;
  into.estimated = into.estimated || x.estimated;
}

void sum_usage(token_usage& sum, const token_usage& x) {
  sum.prompt_tokens += x.prompt_tokens;
  sum.completion_tokens += x.completion_tokens;
  sum.total_tokens += x.total_tokens;
  sum.cached_tokens += x.cached_tokens;
  sum.estimated = sum.estimated || x.estimated;
}

namespace {

/// The usage object as the JSON writer gives it (keys sorted), written
/// directly: it is stamped on every turn.
std::string usage_text(const token_usage& sum, int64_t context_tokens,
                       int32_t requests) {
  auto field = [](std::string& out, const char* key, int64_t v) {
    out += '"';
    out += key;
    out += "\":";
    out += std::to_string(v);
    out += ',';
  };
  std::string out = "{";
  field(out, "cached_tokens", sum.cached_tokens);
  field(out, "completion_tokens", sum.completion_tokens);
  field(out, "context_tokens", context_tokens);
  if (sum.estimated)
    out += "\"estimated\":true,";
  field(out, "prompt_tokens", sum.prompt_tokens);
  field(out, "requests", requests);
  field(out, "total_tokens", sum.total_tokens);
  out.back() = '}';
  return out;
}

} // namespace

std::string stamped_with_usage(const model_message& assistant,
                               const token_usage& sum, int64_t context_tokens,
                               int32_t requests, const std::string& model) {
  auto usage = usage_text(sum, context_tokens, requests);
  const auto& text = assistant.text();
  const auto& fields = assistant.fields();
  if (text.size() > 2 && text.back() == '}' && !fields.contains("usage")
      && !fields.contains("model")) {
    // The two fields go after the others: readers parse the line, so the
    // order of its keys does not matter, and the message is not parsed and
    // written out again for them.
    std::string out = text;
    out.pop_back();
    out += ",\"model\":";
    out += json(model).dump(-1, ' ', false, json::error_handler_t::replace);
    out += ",\"usage\":";
    out += usage;
    out += '}';
    return out;
  }
  auto msg = assistant.form();
  msg["usage"] = json::parse(usage);
  msg["model"] = model;
  return msg.dump(-1, ' ', false, json::error_handler_t::replace);
}

void keep_reasoning(json& msg, const model_reply& reply) {
  if (!reply.reasoning_content.empty())
    msg["reasoning_content"] = reply.reasoning_content;
  if (!reply.thinking_blocks_json.empty()) {
    auto blocks = json::parse(reply.thinking_blocks_json, nullptr, false);
    if (blocks.is_array())
      msg["thinking_blocks"] = std::move(blocks);
  }
}

json assistant_with_calls(const model_reply& reply,
                          const std::vector<tool_call>& calls) {
  json msg{{"role", "assistant"}};
  msg["content"] = reply.content.empty() ? json(nullptr) : json(reply.content);
  auto& arr = msg["tool_calls"] = json::array();
  for (auto& c : calls)
    arr.push_back({{"id", c.id},
                   {"type", "function"},
                   {"function", {{"name", c.name}, {"arguments", c.arguments_json}}}});
  keep_reasoning(msg, reply);
  return msg;
}

std::vector<tool_call> usable_calls(const model_reply& reply, int iteration) {
  std::vector<tool_call> out;
  for (auto& c : reply.tool_calls) {
    if (c.name.empty())
      continue;
    auto call = c;
    auto taken = [&](const std::string& id) {
      for (auto& o : out)
        if (o.id == id)
          return true;
      return false;
    };
    if (call.id.empty() || taken(call.id))
      call.id = "call_" + std::to_string(iteration) + "_"
                + std::to_string(out.size());
    out.push_back(std::move(call));
  }
  return out;
}

std::string hint_for(const tool_call& c) {
  auto args = c.arguments_json.size() > 60 ? c.arguments_json.substr(0, 57) + "..."
                                           : c.arguments_json;
  return c.name + "(" + args + ")";
}

std::string hosted_hint_for(const std::string& name,
                            const std::string& arguments_json) {
  if (arguments_json.empty() || arguments_json == "{}")
    return name;
  return hint_for({"", name, arguments_json});
}

} // namespace nb

// Messages API answers, whole and streamed, back into model_reply values.
#include "actors/provider/anthropic_wire.hpp"

#include "actors/provider/openai_wire.hpp"
#include "actors/provider/wire_json.hpp"

namespace nb {

namespace {

using json = nlohmann::json;
using namespace wire;

/// Appends one finished content block to `out`.
void take_block(const json& b, model_reply& out, json& thinking) {
  auto type = string_field(b, "type");
  if (type == "text") {
    out.content += string_field(b, "text");
  } else if (type == "thinking") {
    out.reasoning_content += string_field(b, "thinking");
    thinking.push_back(b);
  } else if (type == "redacted_thinking") {
    thinking.push_back(b);
  } else if (type == "tool_use") {
    tool_call call;
    call.id = string_field(b, "id");
    if (call.id.empty())
      call.id = make_tool_call_id();
    call.name = string_field(b, "name");
    call.arguments_json = b.contains("input") ? arguments_text(b["input"])
                                              : std::string{"{}"};
    out.tool_calls.push_back(std::move(call));
  }
}

void settle(model_reply& out, const json& thinking, std::string stop) {
  if (!thinking.empty())
    out.thinking_blocks_json = thinking.dump();
  out.finish_reason = map_stop_reason(stop);
  if (out.finish_reason.empty())
    out.finish_reason = out.tool_calls.empty() ? "stop" : "tool_calls";
}

} // namespace

std::string map_stop_reason(std::string_view r) {
  if (r == "tool_use")
    return "tool_calls";
  if (r == "end_turn" || r == "stop_sequence" || r == "pause_turn")
    return "stop";
  if (r == "max_tokens" || r == "model_context_window_exceeded")
    return "length";
  if (r == "refusal")
    return "content_filter";
  return std::string{r};
}

token_usage read_anthropic_usage(const json& u) {
  token_usage out;
  auto cache_read = int_field(u, "cache_read_input_tokens");
  out.prompt_tokens = int_field(u, "input_tokens") + cache_read
                      + int_field(u, "cache_creation_input_tokens");
  out.completion_tokens = int_field(u, "output_tokens");
  out.total_tokens = out.prompt_tokens + out.completion_tokens;
  out.cached_tokens = cache_read;
  return out;
}

std::string parse_anthropic_message(std::string_view body, model_reply& out) {
  std::string why;
  auto doc = parse_bounded(body, why);
  if (!doc.is_object()) {
    if (!why.empty() && why != "not valid JSON")
      return "Model returned an unusable response: " + why + ".";
    return "Model returned a response that is not a JSON message: "
           + (body.empty() ? std::string{"(empty body)"} : preview(body));
  }
  if (string_field(doc, "type") == "error"
      || (doc.contains("error") && !doc["error"].is_null()))
    return "Model returned an error: "
           + error_message(doc.contains("error") ? doc["error"] : doc);
  auto content = doc.find("content");
  if (content == doc.end() || !content->is_array())
    return "Model returned a message without content blocks.";
  json thinking = json::array();
  for (auto& b : *content)
    take_block(b, out, thinking);
  settle(out, thinking, string_field(doc, "stop_reason"));
  if (doc.contains("usage"))
    out.usage = read_anthropic_usage(doc["usage"]);
  return {};
}

std::vector<stream_piece> anthropic_stream::apply(std::string_view data) {
  std::vector<stream_piece> out;
  if (stopped_ || !error_.empty())
    return out;
  std::string why;
  auto ev = parse_bounded(data, why);
  if (!ev.is_object()) {
    error_ = "Model stream sent an event that is not JSON: " + preview(data);
    return out;
  }
  auto type = string_field(ev, "type");
  auto index = int_field(ev, "index");
  if (type == "message_start") {
    if (ev.contains("message") && ev["message"].is_object()
        && ev["message"].contains("usage"))
      usage_ = read_anthropic_usage(ev["message"]["usage"]);
  } else if (type == "content_block_start") {
    auto& b = blocks_[index];
    b.start = ev.contains("content_block") ? ev["content_block"] : json{};
    // A block may open with text already in it.
    auto first = string_field(b.start, "text");
    if (first.empty())
      first = string_field(b.start, "thinking");
    if (!first.empty()) {
      b.text = first;
      out.push_back({std::move(first),
                     string_field(b.start, "type") == "thinking"});
    }
  } else if (type == "content_block_delta") {
    auto& b = blocks_[index];
    auto d = ev.contains("delta") ? ev["delta"] : json{};
    auto kind = string_field(d, "type");
    if (kind == "text_delta") {
      auto t = string_field(d, "text");
      b.text += t;
      if (!t.empty())
        out.push_back({std::move(t), false});
    } else if (kind == "thinking_delta") {
      auto t = string_field(d, "thinking");
      b.text += t;
      if (!t.empty())
        out.push_back({std::move(t), true});
    } else if (kind == "input_json_delta") {
      b.text += string_field(d, "partial_json");
    } else if (kind == "signature_delta") {
      b.signature += string_field(d, "signature");
    }
  } else if (type == "message_delta") {
    if (auto r = string_field(ev.contains("delta") ? ev["delta"] : json{},
                              "stop_reason");
        !r.empty())
      stop_reason_ = r;
    // Output tokens are cumulative in each message_delta.
    if (ev.contains("usage") && ev["usage"].is_object()) {
      auto& u = ev["usage"];
      if (u.contains("output_tokens"))
        usage_.completion_tokens = int_field(u, "output_tokens");
      if (u.contains("input_tokens")) {
        auto fresh = read_anthropic_usage(u);
        usage_.prompt_tokens = fresh.prompt_tokens;
        usage_.cached_tokens = fresh.cached_tokens;
      }
      usage_.total_tokens = usage_.prompt_tokens + usage_.completion_tokens;
    }
  } else if (type == "message_stop") {
    stopped_ = true;
  } else if (type == "error") {
    error_ = "Model returned an error: "
             + error_message(ev.contains("error") ? ev["error"] : ev);
  }
  // ping and content_block_stop carry nothing to keep; unknown event types
  // are ignored, as the API's versioning policy asks.
  return out;
}

void anthropic_stream::finish(model_reply& out) {
  json thinking = json::array();
  for (auto& [index, b] : blocks_) {
    auto block = b.start.is_object() ? b.start : json::object();
    auto type = string_field(block, "type");
    if (type == "text") {
      block["text"] = b.text;
    } else if (type == "thinking") {
      block["thinking"] = b.text;
      if (!b.signature.empty())
        block["signature"] = b.signature;
    } else if (type == "tool_use") {
      std::string why;
      // Pieces joined make the input; no pieces means the start's input.
      if (!b.text.empty()) {
        auto input = parse_bounded(b.text, why);
        block["input"] = input.is_null() ? json(b.text) : input;
      }
    }
    take_block(block, out, thinking);
  }
  blocks_.clear();
  settle(out, thinking, stop_reason_);
  out.usage = usage_;
}

} // namespace nb

// Builders for scripted Messages API answers (see fake_anthropic.hpp).
#include "tests/support/fake_anthropic.hpp"

#include <algorithm>

namespace nb::test::anthropic {

using json = nlohmann::json;

namespace {

/// Splits `text` into at most `n` non-empty pieces of similar size.
std::vector<std::string> split(const std::string& text, size_t n) {
  std::vector<std::string> out;
  if (text.empty())
    return out;
  n = std::max<size_t>(1, std::min(n, text.size()));
  auto step = (text.size() + n - 1) / n;
  for (size_t i = 0; i < text.size(); i += step)
    out.push_back(text.substr(i, step));
  return out;
}

fake_response sse_response(std::vector<std::string> events) {
  fake_response r;
  r.content_type = "text/event-stream";
  r.events = std::move(events);
  return r;
}

json start_event(const json& usage_obj) {
  json start_usage = usage_obj;
  start_usage["output_tokens"] = 1;
  return {{"type", "message_start"},
          {"message",
           {{"id", "msg_fake"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", "claude-fake"},
            {"content", json::array()},
            {"stop_reason", nullptr},
            {"usage", start_usage}}}};
}

json end_delta(const std::string& stop_reason, const json& usage_obj) {
  return {{"type", "message_delta"},
          {"delta", {{"stop_reason", stop_reason}, {"stop_sequence", nullptr}}},
          {"usage", {{"output_tokens", usage_obj.value("output_tokens", 0)}}}};
}

} // namespace

json usage(int in, int out, int cached) {
  return {{"input_tokens", in},
          {"output_tokens", out},
          {"cache_read_input_tokens", cached},
          {"cache_creation_input_tokens", 0}};
}

json text_block(std::string text) {
  return {{"type", "text"}, {"text", std::move(text)}};
}

json tool_use_block(std::string id, std::string name, json input) {
  return {{"type", "tool_use"},
          {"id", std::move(id)},
          {"name", std::move(name)},
          {"input", std::move(input)}};
}

json thinking_block(std::string thinking, std::string signature) {
  return {{"type", "thinking"},
          {"thinking", std::move(thinking)},
          {"signature", std::move(signature)}};
}

fake_response message(json content, std::string stop_reason, json usage_obj) {
  json body{{"id", "msg_fake"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", "claude-fake"},
            {"content", std::move(content)},
            {"stop_reason", std::move(stop_reason)},
            {"stop_sequence", nullptr},
            {"usage", std::move(usage_obj)}};
  return raw(200, "application/json", body.dump());
}

fake_response text(std::string t) {
  return message(json::array({text_block(std::move(t))}));
}

std::string event(const json& ev) {
  return "event: " + ev.value("type", std::string{"message"})
         + "\ndata: " + ev.dump() + "\n\n";
}

fake_response stream(json content, std::string stop_reason, json usage_obj,
                     size_t pieces) {
  std::vector<std::string> ev;
  ev.push_back(event(start_event(usage_obj)));
  ev.push_back(event({{"type", "ping"}}));
  int64_t index = 0;
  for (auto& b : content) {
    auto type = b.value("type", std::string{});
    json start = b;
    std::vector<json> deltas;
    if (type == "text") {
      start["text"] = "";
      for (auto& p : split(b.value("text", std::string{}), pieces))
        deltas.push_back({{"type", "text_delta"}, {"text", p}});
    } else if (type == "thinking") {
      start["thinking"] = "";
      start["signature"] = "";
      for (auto& p : split(b.value("thinking", std::string{}), pieces))
        deltas.push_back({{"type", "thinking_delta"}, {"thinking", p}});
      deltas.push_back({{"type", "signature_delta"},
                        {"signature", b.value("signature", std::string{})}});
    } else if (type == "tool_use") {
      start["input"] = json::object();
      for (auto& p : split(b["input"].dump(), pieces))
        deltas.push_back({{"type", "input_json_delta"}, {"partial_json", p}});
    }
    ev.push_back(event({{"type", "content_block_start"},
                        {"index", index},
                        {"content_block", start}}));
    for (auto& d : deltas)
      ev.push_back(event(
        {{"type", "content_block_delta"}, {"index", index}, {"delta", d}}));
    ev.push_back(event({{"type", "content_block_stop"}, {"index", index}}));
    ++index;
  }
  ev.push_back(event(end_delta(stop_reason, usage_obj)));
  ev.push_back(event({{"type", "message_stop"}}));
  return sse_response(std::move(ev));
}

fake_response stream_text(std::vector<std::string> pieces, json usage_obj) {
  std::vector<std::string> ev;
  ev.push_back(event(start_event(usage_obj)));
  ev.push_back(event({{"type", "content_block_start"},
                      {"index", 0},
                      {"content_block", {{"type", "text"}, {"text", ""}}}}));
  for (auto& p : pieces)
    ev.push_back(event({{"type", "content_block_delta"},
                        {"index", 0},
                        {"delta", {{"type", "text_delta"}, {"text", p}}}}));
  ev.push_back(event({{"type", "content_block_stop"}, {"index", 0}}));
  ev.push_back(event(end_delta("end_turn", usage_obj)));
  ev.push_back(event({{"type", "message_stop"}}));
  return sse_response(std::move(ev));
}

fake_response error(int status, std::string type, std::string message,
                    std::optional<int> retry_after) {
  json body{{"type", "error"},
            {"error", {{"type", std::move(type)}, {"message", std::move(message)}}}};
  auto r = raw(status, "application/json", body.dump());
  if (retry_after)
    r.headers["Retry-After"] = std::to_string(*retry_after);
  return r;
}

fake_response echo(const json& body) {
  std::string said;
  if (body.is_object() && body.contains("messages")
      && body["messages"].is_array()) {
    for (auto& m : body["messages"]) {
      if (!m.is_object() || m.value("role", std::string{}) != "user"
          || !m.contains("content"))
        continue;
      const auto& c = m.at("content");
      if (c.is_string()) {
        said = c.get<std::string>();
        continue;
      }
      if (!c.is_array())
        continue;
      std::string text;
      for (auto& b : c)
        if (b.is_object() && b.value("type", std::string{}) == "text")
          text += b.value("text", std::string{});
      if (!text.empty())
        said = text;
    }
  }
  bool streamed = body.is_object() && body.value("stream", false);
  return streamed ? stream_text({"echo: ", said})
                  : text("echo: " + said);
}

} // namespace nb::test::anthropic

// Builders for the fake's scripted answers, in the OpenAI wire shape.
#include "tests/support/fake_llm.hpp"

#include <algorithm>

namespace nb::test {

using json = nlohmann::json;

namespace {

json call_json(const fake_call& c) {
  return {{"id", c.id},
          {"type", "function"},
          {"function", {{"name", c.name}, {"arguments", c.arguments}}}};
}

} // namespace

fake_call call(std::string id, json name, json arguments) {
  if (arguments.is_object())
    arguments = arguments.dump();
  return {std::move(id), std::move(name), std::move(arguments)};
}

json usage(int prompt, int completion) {
  return {{"prompt_tokens", prompt},
          {"completion_tokens", completion},
          {"total_tokens", prompt + completion}};
}

fake_response completion(json message, std::string finish_reason,
                         json usage_obj) {
  json body{{"id", "chatcmpl-fake"},
            {"object", "chat.completion"},
            {"created", 1},
            {"model", "fake-model"},
            {"choices",
             json::array({{{"index", 0},
                           {"message", std::move(message)},
                           {"finish_reason", std::move(finish_reason)}}})}};
  if (!usage_obj.is_null())
    body["usage"] = std::move(usage_obj);
  fake_response r;
  r.body = body.dump();
  return r;
}

fake_response text(std::string content, json usage_obj) {
  return completion({{"role", "assistant"}, {"content", std::move(content)}},
                    "stop", std::move(usage_obj));
}

fake_response tool_calls(std::vector<fake_call> calls, std::string content) {
  json list = json::array();
  for (auto& c : calls)
    list.push_back(call_json(c));
  json message{{"role", "assistant"}, {"tool_calls", std::move(list)}};
  message["content"] = content.empty() ? json(nullptr) : json(content);
  return completion(std::move(message), "tool_calls", usage(10, 5));
}

json chunk(json delta, std::string finish_reason) {
  return {{"id", "chatcmpl-fake"},
          {"object", "chat.completion.chunk"},
          {"created", 1},
          {"model", "fake-model"},
          {"choices",
           json::array({{{"index", 0},
                         {"delta", std::move(delta)},
                         {"finish_reason", finish_reason.empty()
                                             ? json(nullptr)
                                             : json(finish_reason)}}})}};
}

std::string sse(const json& c) {
  return "data: " + c.dump() + "\n\n";
}

std::string sse_done() {
  return "data: [DONE]\n\n";
}

namespace {

fake_response streamed(std::vector<std::string> middle, std::string finish,
                       json usage_obj) {
  fake_response r;
  r.content_type = "text/event-stream";
  r.events.push_back(sse(chunk({{"role", "assistant"}, {"content", ""}})));
  for (auto& e : middle)
    r.events.push_back(std::move(e));
  r.events.push_back(sse(chunk(json::object(), std::move(finish))));
  if (!usage_obj.is_null()) {
    auto last = chunk(json::object());
    last["choices"] = json::array();
    last["usage"] = std::move(usage_obj);
    r.events.push_back(sse(last));
  }
  r.events.push_back(sse_done());
  return r;
}

} // namespace

fake_response stream_text(std::vector<std::string> pieces, json usage_obj) {
  std::vector<std::string> middle;
  for (auto& p : pieces)
    middle.push_back(sse(chunk({{"content", p}})));
  return streamed(std::move(middle), "stop", std::move(usage_obj));
}

fake_response stream_tool_calls(std::vector<fake_call> calls, size_t pieces) {
  pieces = std::max<size_t>(1, pieces);
  std::vector<std::string> middle;
  // Ids and names first, as OpenAI does, one chunk per call.
  for (size_t i = 0; i < calls.size(); ++i) {
    json tc{{"index", i},
            {"id", calls[i].id},
            {"type", "function"},
            {"function", {{"name", calls[i].name}, {"arguments", ""}}}};
    middle.push_back(sse(chunk({{"tool_calls", json::array({tc})}})));
  }
  // Then argument fragments, alternating between calls.
  for (size_t p = 0; p < pieces; ++p) {
    for (size_t i = 0; i < calls.size(); ++i) {
      auto& args = calls[i].arguments;
      json piece;
      if (args.is_string()) {
        auto s = args.get<std::string>();
        auto len = (s.size() + pieces - 1) / pieces;
        auto from = std::min(s.size(), p * len);
        piece = s.substr(from, std::min(len, s.size() - from));
      } else if (p == 0) {
        piece = args;
      } else {
        continue;
      }
      json tc{{"index", i}, {"function", {{"arguments", piece}}}};
      middle.push_back(sse(chunk({{"tool_calls", json::array({tc})}})));
    }
  }
  return streamed(std::move(middle), "tool_calls", usage(10, 5));
}

fake_response error(int status, std::string message,
                    std::optional<int> retry_after) {
  if (message.empty())
    message = "fake error " + std::to_string(status);
  fake_response r;
  r.status = status;
  r.body = json{{"error",
                 {{"message", message},
                  {"type", status == 429 ? "rate_limit_error" : "api_error"},
                  {"code", status}}}}
             .dump();
  if (retry_after)
    r.headers["Retry-After"] = std::to_string(*retry_after);
  return r;
}

fake_response error(int status, int retry_after) {
  return error(status, "", retry_after);
}

fake_response raw(int status, std::string content_type, std::string body) {
  fake_response r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

} // namespace nb::test

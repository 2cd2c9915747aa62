// Builders for the fake's scripted answers in the Responses API shape.
#include "tests/support/fake_openai_responses.hpp"

#include <algorithm>

namespace nb::test::responses {

using json = nlohmann::json;

namespace {

/// `text` cut into `n` nearly equal parts (at least one, maybe empty).
std::vector<std::string> responses_split(const std::string& text, size_t n) {
  n = std::max<size_t>(1, std::min(n, std::max<size_t>(1, text.size())));
  std::vector<std::string> out;
  size_t step = (text.size() + n - 1) / n;
  for (size_t at = 0; at < text.size(); at += step)
    out.push_back(text.substr(at, step));
  if (out.empty())
    out.emplace_back();
  return out;
}

json response_object(json output, json usage_obj, std::string status) {
  json r{{"id", "resp_fake"},
         {"object", "response"},
         {"created_at", 1},
         {"status", std::move(status)},
         {"model", "fake-model"},
         {"output", std::move(output)},
         {"parallel_tool_calls", true},
         {"store", false}};
  r["usage"] = usage_obj.is_null() ? json(nullptr) : std::move(usage_obj);
  return r;
}

/// The in-progress copy of an item that output_item.added announces.
json opened(json item) {
  item["status"] = "in_progress";
  auto type = item.value("type", std::string{});
  if (type == "message")
    item["content"] = json::array();
  else if (type == "function_call")
    item["arguments"] = "";
  else if (type == "reasoning")
    item["summary"] = json::array();
  else if (type == "web_search_call") // the query comes with its end
    item["action"] = {{"type", "search"}};
  return item;
}

} // namespace

json usage(int in, int out, int cached) {
  return {{"input_tokens", in},
          {"input_tokens_details", {{"cached_tokens", cached}}},
          {"output_tokens", out},
          {"output_tokens_details", {{"reasoning_tokens", 0}}},
          {"total_tokens", in + out}};
}

json web_search_call_item(std::string id, std::vector<std::string> queries,
                          json sources) {
  return {{"id", std::move(id)},
          {"type", "web_search_call"},
          {"status", "completed"},
          {"action",
           {{"type", "search"},
            {"queries", std::move(queries)},
            {"sources", std::move(sources)}}}};
}

json message_item(std::string id, std::string text) {
  return {{"id", std::move(id)},
          {"type", "message"},
          {"status", "completed"},
          {"role", "assistant"},
          {"content", json::array({{{"type", "output_text"},
                                    {"text", std::move(text)},
                                    {"annotations", json::array()}}})}};
}

json function_call_item(std::string id, std::string call_id, std::string name,
                        std::string arguments) {
  return {{"id", std::move(id)},     {"type", "function_call"},
          {"status", "completed"},   {"call_id", std::move(call_id)},
          {"name", std::move(name)}, {"arguments", std::move(arguments)}};
}

json reasoning_item(std::string id, std::string summary) {
  return {{"id", std::move(id)},
          {"type", "reasoning"},
          {"summary", json::array({{{"type", "summary_text"},
                                    {"text", std::move(summary)}}})}};
}

fake_response response(json output, json usage_obj, std::string status) {
  fake_response r;
  r.body =
    response_object(std::move(output), std::move(usage_obj), std::move(status))
      .dump();
  return r;
}

std::string event(const json& ev) {
  return "event: " + ev.value("type", std::string{}) + "\ndata: " + ev.dump()
         + "\n\n";
}

fake_response stream(json output, json usage_obj, size_t pieces,
                     std::string status) {
  fake_response r;
  r.content_type = "text/event-stream";
  int seq = 0;
  auto emit = [&](json ev) {
    ev["sequence_number"] = seq++;
    r.events.push_back(event(ev));
  };
  auto start = response_object(json::array(), nullptr, "in_progress");
  emit({{"type", "response.created"}, {"response", start}});
  emit({{"type", "response.in_progress"}, {"response", start}});
  for (size_t i = 0; i < output.size(); ++i) {
    auto& item = output[i];
    auto id = item.value("id", std::string{});
    auto type = item.value("type", std::string{});
    emit({{"type", "response.output_item.added"},
          {"output_index", i},
          {"item", opened(item)}});
    if (type == "message") {
      auto text = item["content"][0].value("text", std::string{});
      json part{
        {"type", "output_text"}, {"text", ""}, {"annotations", json::array()}};
      emit({{"type", "response.content_part.added"},
            {"item_id", id},
            {"output_index", i},
            {"content_index", 0},
            {"part", part}});
      for (auto& p : responses_split(text, pieces))
        emit({{"type", "response.output_text.delta"},
              {"item_id", id},
              {"output_index", i},
              {"content_index", 0},
              {"delta", p}});
      emit({{"type", "response.output_text.done"},
            {"item_id", id},
            {"output_index", i},
            {"content_index", 0},
            {"text", text}});
      part["text"] = text;
      emit({{"type", "response.content_part.done"},
            {"item_id", id},
            {"output_index", i},
            {"content_index", 0},
            {"part", part}});
    } else if (type == "function_call") {
      auto args = item.value("arguments", std::string{});
      for (auto& p : responses_split(args, pieces))
        emit({{"type", "response.function_call_arguments.delta"},
              {"item_id", id},
              {"output_index", i},
              {"delta", p}});
      emit({{"type", "response.function_call_arguments.done"},
            {"item_id", id},
            {"output_index", i},
            {"arguments", args}});
    } else if (type == "reasoning") {
      auto text = item["summary"][0].value("text", std::string{});
      for (auto& p : responses_split(text, pieces))
        emit({{"type", "response.reasoning_summary_text.delta"},
              {"item_id", id},
              {"output_index", i},
              {"summary_index", 0},
              {"delta", p}});
      emit({{"type", "response.reasoning_summary_text.done"},
            {"item_id", id},
            {"output_index", i},
            {"summary_index", 0},
            {"text", text}});
    }
    emit({{"type", "response.output_item.done"},
          {"output_index", i},
          {"item", item}});
  }
  auto kind =
    status == "incomplete" ? "response.incomplete" : "response.completed";
  emit(
    {{"type", kind}, {"response", response_object(output, usage_obj, status)}});
  return r;
}

fake_response stream_text(std::vector<std::string> pieces, json usage_obj) {
  std::string text;
  for (auto& p : pieces)
    text += p;
  auto r = stream(json::array({message_item("msg_fake", text)}), usage_obj, 1);
  // Replace the single delta by the given pieces, in order.
  std::vector<std::string> events;
  for (auto& e : r.events) {
    if (e.rfind("event: response.output_text.delta\n", 0) != 0) {
      events.push_back(e);
      continue;
    }
    auto data = json::parse(e.substr(e.find("data: ") + 6));
    for (auto& p : pieces) {
      data["delta"] = p;
      events.push_back(event(data));
    }
  }
  r.events = std::move(events);
  return r;
}

fake_response stream_calls(std::vector<fake_call> calls, json usage_obj) {
  json output = json::array();
  for (auto& c : calls) {
    auto bar = c.id.find('|');
    auto call_id =
      bar == std::string::npos ? "call_" + c.id : c.id.substr(0, bar);
    auto item_id =
      bar == std::string::npos ? "fc_" + c.id : c.id.substr(bar + 1);
    output.push_back(function_call_item(
      item_id, call_id, c.name.is_string() ? c.name.get<std::string>() : "",
      c.arguments.is_string() ? c.arguments.get<std::string>()
                              : c.arguments.dump()));
  }
  return stream(std::move(output), std::move(usage_obj));
}

fake_response stream_failed(std::string code, std::string message) {
  fake_response r;
  r.content_type = "text/event-stream";
  auto start = response_object(json::array(), nullptr, "in_progress");
  r.events.push_back(event({{"type", "response.created"},
                            {"sequence_number", 0},
                            {"response", start}}));
  auto failed = response_object(json::array(), nullptr, "failed");
  failed["error"] = {{"code", std::move(code)},
                     {"message", std::move(message)}};
  r.events.push_back(event({{"type", "response.failed"},
                            {"sequence_number", 1},
                            {"response", failed}}));
  return r;
}

fake_response error(int status, std::string message, std::string param) {
  fake_response r;
  r.status = status;
  r.body = json{{"error",
                 {{"message", std::move(message)},
                  {"type", "invalid_request_error"},
                  {"param", param.empty() ? json(nullptr) : json(param)},
                  {"code", nullptr}}}}
             .dump();
  return r;
}

fake_response echo(const json& body) {
  std::string said;
  if (body.is_object() && body.contains("input") && body["input"].is_array())
    for (auto& item : body["input"]) {
      if (!item.is_object() || item.value("role", std::string{}) != "user"
          || !item.contains("content") || !item["content"].is_array())
        continue;
      said.clear();
      for (auto& part : item["content"])
        if (part.is_object()
            && part.value("type", std::string{}) == "input_text")
          said += part.value("text", std::string{});
    }
  bool streamed = body.is_object() && body.value("stream", false);
  return streamed
           ? stream_text({"echo: ", said})
           : response(json::array({message_item("msg_echo", "echo: " + said)}));
}

} // namespace nb::test::responses

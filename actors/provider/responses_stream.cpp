// Responses API answers, whole and streamed, back into model_reply values
// (the original's openai_responses/parsing.py).
#include "actors/provider/responses_wire.hpp"

#include "actors/provider/openai_wire.hpp"
#include "actors/provider/wire_json.hpp"

namespace nb {

namespace {

using json = nlohmann::json;
using namespace wire;

/// The text of a reasoning output item: its content texts and its
/// summary_text parts, a newline between parts that do not bring one.
std::string responses_reasoning_text(const json& item) {
  std::string out;
  auto add = [&out](const std::string& part) {
    if (part.empty())
      return;
    if (!out.empty() && !std::isspace(static_cast<unsigned char>(out.back()))
        && !std::isspace(static_cast<unsigned char>(part.front())))
      out += '\n';
    out += part;
  };
  auto content = item.contains("content") ? item["content"] : json{};
  if (content.is_string())
    add(content.get<std::string>());
  else if (content.is_array())
    for (auto& block : content)
      add(string_field(block, "text"));
  if (item.contains("summary") && item["summary"].is_array())
    for (auto& s : item["summary"])
      if (string_field(s, "type") == "summary_text")
        add(string_field(s, "text"));
  return out;
}

/// Our tool-call id for a function_call item: "call_id|item_id", so the
/// item id survives the round trip through the session history.
std::string responses_tool_call_id(const std::string& call_id,
                                   const std::string& item_id) {
  return call_id + "|" + (item_id.empty() ? std::string{"fc_0"} : item_id);
}

/// "Response failed: <message>" out of a response.failed or error event.
std::string responses_failure_text(const json& ev) {
  json detail;
  if (ev.contains("response") && ev["response"].is_object()
      && ev["response"].contains("error") && !ev["response"]["error"].is_null())
    detail = ev["response"]["error"];
  else if (ev.contains("error") && !ev["error"].is_null())
    detail = ev["error"];
  else if (ev.contains("message"))
    detail = ev["message"];
  else
    detail = ev;
  auto text = error_message(detail);
  if (text.size() > 500)
    text.resize(500);
  return "Response failed: " + text;
}

} // namespace

std::string map_responses_status(const json& response, bool has_tool_calls) {
  auto status = string_field(response, "status");
  if (status == "incomplete") {
    auto& details = response.contains("incomplete_details")
                      ? response["incomplete_details"]
                      : json{};
    if (string_field(details, "reason") == "content_filter")
      return "content_filter";
    return "length";
  }
  if (status == "failed" || status == "cancelled")
    return "error";
  return has_tool_calls ? "tool_calls" : "stop";
}

token_usage read_responses_usage(const json& u) {
  token_usage out;
  if (!u.is_object())
    return out;
  out.prompt_tokens = int_field(u, "input_tokens");
  if (out.prompt_tokens == 0)
    out.prompt_tokens = int_field(u, "prompt_tokens");
  out.completion_tokens = int_field(u, "output_tokens");
  if (out.completion_tokens == 0)
    out.completion_tokens = int_field(u, "completion_tokens");
  out.total_tokens = std::max(int_field(u, "total_tokens"),
                              out.prompt_tokens + out.completion_tokens);
  if (u.contains("input_tokens_details"))
    out.cached_tokens = int_field(u["input_tokens_details"], "cached_tokens");
  return out;
}

std::string parse_responses_body(std::string_view body, model_reply& out) {
  std::string why;
  auto r = parse_bounded(body, why);
  if (!r.is_object())
    return "the model answered with something that is not a response: "
           + (why.empty() ? preview(body) : why);
  if (r.contains("error") && !r["error"].is_null())
    return "Response failed: " + error_message(r["error"]);
  if (string_field(r, "status") == "failed")
    return responses_failure_text({{"response", r}});
  if (!r.contains("output") || !r["output"].is_array())
    return "the response has no output: " + preview(body);
  bool refused = false;
  for (auto& item : r["output"]) {
    auto type = string_field(item, "type");
    if (type == "message" && item.contains("content")
        && item["content"].is_array()) {
      for (auto& block : item["content"]) {
        auto btype = string_field(block, "type");
        if (btype == "output_text") {
          out.content += string_field(block, "text");
        } else if (btype == "refusal") {
          refused = true;
          out.content += string_field(block, "refusal");
        }
      }
    } else if (type == "reasoning") {
      out.reasoning_content += responses_reasoning_text(item);
    } else if (type == "function_call") {
      tool_call call;
      call.id = responses_tool_call_id(string_field(item, "call_id"),
                                       string_field(item, "id"));
      call.name = string_field(item, "name");
      call.arguments_json = item.contains("arguments")
                              ? arguments_text(item["arguments"])
                              : std::string{};
      if (call.arguments_json.empty())
        call.arguments_json = "{}";
      out.tool_calls.push_back(std::move(call));
    }
  }
  out.finish_reason = refused
                        ? "content_filter"
                        : map_responses_status(r, !out.tool_calls.empty());
  if (r.contains("usage"))
    out.usage = read_responses_usage(r["usage"]);
  // Every output item, reasoning included: the next state is made of them
  // (settle_responses_state).
  out.conversation.record = std::make_shared<const std::string>(
    r["output"].dump(-1, ' ', false, json::error_handler_t::replace));
  return {};
}

std::vector<stream_piece> responses_stream::apply(std::string_view data) {
  std::vector<stream_piece> out;
  if (data == "[DONE]")
    return out;
  std::string why;
  auto ev = parse_bounded(data, why);
  if (!ev.is_object()) {
    error_ = "Model stream sent an event that is not JSON: " + preview(data);
    return out;
  }
  auto type = string_field(ev, "type");
  auto item =
    ev.contains("item") && ev["item"].is_object() ? ev["item"] : json{};
  if (type == "response.output_text.delta"
      || type == "response.refusal.delta") {
    auto text = string_field(ev, "delta");
    content_ += text;
    out.push_back({std::move(text), false});
  } else if (type == "response.reasoning_summary_text.delta"
             || type == "response.reasoning_text.delta") {
    auto text = string_field(ev, "delta");
    reasoning_ += text;
    reasoning_streamed_ = reasoning_streamed_ || !text.empty();
    out.push_back({std::move(text), true});
  } else if (type == "response.output_item.added") {
    if (auto search = hosted_search_started(ev)) {
      out.push_back(std::move(*search));
      return out;
    }
    if (string_field(item, "type") != "function_call")
      return out;
    auto call_id = string_field(item, "call_id");
    if (call_id.empty() || calls_.count(call_id))
      return out;
    call_order_.push_back(call_id);
    calls_[call_id] = {string_field(item, "id"), string_field(item, "name"),
                       item.contains("arguments")
                         ? arguments_text(item["arguments"])
                         : std::string{}};
  } else if (type == "response.function_call_arguments.delta") {
    auto at = calls_.find(string_field(ev, "call_id"));
    // Events may name the call by its item id only.
    if (at == calls_.end())
      for (auto i = calls_.begin(); i != calls_.end(); ++i)
        if (i->second.item_id == string_field(ev, "item_id"))
          at = i;
    if (at != calls_.end())
      at->second.arguments += string_field(ev, "delta");
  } else if (type == "response.function_call_arguments.done") {
    for (auto& [id, call] : calls_)
      if (id == string_field(ev, "call_id")
          || (!call.item_id.empty()
              && call.item_id == string_field(ev, "item_id")))
        if (ev.contains("arguments") && ev["arguments"].is_string())
          call.arguments = ev["arguments"].get<std::string>();
  } else if (type == "response.output_item.done") {
    if (item.is_object()) {
      auto index = ev.contains("output_index")
                       && ev["output_index"].is_number_integer()
                     ? ev["output_index"].get<int64_t>()
                     : static_cast<int64_t>(done_items_.size());
      done_items_[index] = item;
    }
    auto itype = string_field(item, "type");
    if (itype == "function_call") {
      auto call_id = string_field(item, "call_id");
      if (call_id.empty())
        return out;
      if (!calls_.count(call_id))
        call_order_.push_back(call_id);
      auto& call = calls_[call_id];
      if (call.item_id.empty())
        call.item_id = string_field(item, "id");
      if (call.name.empty())
        call.name = string_field(item, "name");
      if (call.arguments.empty() && item.contains("arguments"))
        call.arguments = arguments_text(item["arguments"]);
      call.done = true;
    } else if (itype == "reasoning" && reasoning_.empty()) {
      reasoning_ = responses_reasoning_text(item);
      if (!reasoning_.empty())
        out.push_back({reasoning_, true});
    }
  } else if (type == "response.completed" || type == "response.incomplete") {
    response_ = ev.contains("response") && ev["response"].is_object()
                  ? ev["response"]
                  : json::object();
    if (!response_.contains("status"))
      response_["status"] = type.substr(sizeof("response.") - 1);
    finished_ = true;
  } else if (type == "response.failed" || type == "error") {
    error_ = responses_failure_text(ev);
  }
  return out;
}

void responses_stream::finish(model_reply& out) {
  out.content = std::move(content_);
  out.reasoning_content = std::move(reasoning_);
  for (auto& call_id : call_order_) {
    auto& c = calls_[call_id];
    tool_call call;
    call.id = responses_tool_call_id(call_id, c.item_id);
    call.name = c.name;
    call.arguments_json = c.arguments.empty() ? "{}" : c.arguments;
    out.tool_calls.push_back(std::move(call));
  }
  out.finish_reason = map_responses_status(response_, !out.tool_calls.empty());
  if (response_.contains("usage"))
    out.usage = read_responses_usage(response_["usage"]);
  // The output items for the next state: the terminal object's, else the
  // items as each was done (the original's ResponsesStreamCapture).
  json output = json::array();
  if (response_.contains("output") && response_["output"].is_array()
      && !response_["output"].empty())
    output = response_["output"];
  else
    for (auto& [index, item] : done_items_)
      output.push_back(std::move(item));
  out.conversation.record = std::make_shared<const std::string>(
    output.dump(-1, ' ', false, json::error_handler_t::replace));
  // A model that only answered in the terminal object (no deltas).
  if (out.content.empty() && out.tool_calls.empty()
      && response_.contains("output")) {
    model_reply whole;
    if (parse_responses_body(response_.dump(), whole).empty()) {
      out.content = std::move(whole.content);
      out.tool_calls = std::move(whole.tool_calls);
      out.finish_reason = whole.finish_reason;
      if (out.reasoning_content.empty())
        out.reasoning_content = std::move(whole.reasoning_content);
    }
  }
}

} // namespace nb

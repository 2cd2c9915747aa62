// Streamed completions: SSE framing and the rebuilding of one completion
// from its chunks (tool calls accumulated by index).
#include "actors/provider/openai_wire.hpp"

#include "actors/provider/wire_json.hpp"

namespace nb {

using namespace wire;
using json = nlohmann::json;

void sse_splitter::feed(std::string_view bytes,
                        const std::function<void(std::string_view)>& on_data) {
  buf_.append(bytes);
  size_t start = 0;
  std::string data;
  bool has_data = false;
  // Walk complete lines; an empty line ends an event.
  for (size_t nl; (nl = buf_.find('\n', start)) != std::string::npos;) {
    std::string_view line{buf_.data() + start, nl - start};
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty()) {
      if (has_data)
        on_data(data);
      data.clear();
      has_data = false;
      buf_.erase(0, nl + 1);
      start = 0;
      continue;
    }
    if (line.starts_with("data:")) {
      auto value = line.substr(5);
      if (value.starts_with(' '))
        value.remove_prefix(1);
      if (has_data)
        data += '\n';
      data.append(value);
      has_data = true;
    }
    start = nl + 1;
  }
  // Lines of an unfinished event stay buffered and are re-read next time.
}

std::vector<stream_accumulator::delta>
stream_accumulator::apply(std::string_view data) {
  std::vector<delta> out;
  if (done_ || !error_.empty())
    return out;
  if (data == "[DONE]") {
    done_ = true;
    return out;
  }
  std::string why;
  auto chunk = parse_bounded(data, why);
  if (!chunk.is_object()) {
    error_ = "Model stream sent a chunk that is not JSON: " + preview(data);
    return out;
  }
  if (chunk.contains("error") && !chunk["error"].is_null()) {
    error_ = "Model returned an error: " + error_message(chunk["error"]);
    return out;
  }
  // The last chunk carries usage with an empty choices list.
  if (chunk.contains("usage") && chunk["usage"].is_object())
    usage_ = read_usage(chunk["usage"]);
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty())
    return out;
  auto& choice = (*choices)[0];
  if (auto fr = string_field(choice, "finish_reason"); !fr.empty())
    finish_reason_ = fr;
  if (!choice.is_object() || !choice.contains("delta"))
    return out;
  auto& d = choice["delta"];
  if (auto text = d.contains("content") ? content_text(d["content"])
                                        : std::string{};
      !text.empty()) {
    content_ += text;
    out.push_back({std::move(text), false});
  }
  auto thinking = string_field(d, "reasoning_content");
  if (thinking.empty())
    thinking = string_field(d, "reasoning");
  if (!thinking.empty()) {
    reasoning_ += thinking;
    out.push_back({std::move(thinking), true});
  }
  if (!out.empty())
    emitted_ = true;
  auto merge = [this](int64_t index, const json& tc, const json& fn) {
    auto& call = calls_[index];
    if (auto id = string_field(tc, "id"); !id.empty())
      call.id = std::move(id);
    if (auto name = string_field(fn, "name"); !name.empty())
      call.name = std::move(name);
    if (fn.is_object() && fn.contains("arguments")) {
      auto& a = fn["arguments"];
      // Pieces of a string are concatenated; a whole object replaces.
      if (a.is_string())
        call.arguments += a.get<std::string>();
      else if (!a.is_null())
        call.arguments = a.dump();
    }
  };
  if (d.contains("tool_calls") && d["tool_calls"].is_array()) {
    int64_t position = 0;
    for (auto& tc : d["tool_calls"]) {
      auto index = tc.is_object() && tc.contains("index")
                       && tc["index"].is_number_integer()
                     ? tc["index"].get<int64_t>()
                     : position;
      merge(index, tc, tc.is_object() && tc.contains("function")
                         ? tc["function"]
                         : json{});
      ++position;
    }
  } else if (d.contains("function_call") && d["function_call"].is_object()) {
    merge(0, json{}, d["function_call"]); // legacy single-call form
  }
  return out;
}

void stream_accumulator::finish(model_reply& out) {
  out.content = std::move(content_);
  out.reasoning_content = std::move(reasoning_);
  for (auto& [index, call] : calls_) {
    if (call.id.empty())
      call.id = make_tool_call_id();
    out.tool_calls.push_back(
      {std::move(call.id), std::move(call.name), std::move(call.arguments)});
  }
  calls_.clear();
  out.finish_reason = finish_reason_;
  if (out.finish_reason.empty())
    out.finish_reason = out.tool_calls.empty() ? "stop" : "tool_calls";
  out.usage = usage_;
}

} // namespace nb

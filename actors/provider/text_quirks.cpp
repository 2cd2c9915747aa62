#include "actors/provider/text_quirks.hpp"

#include <algorithm>
#include <optional>

#include "actors/provider/openai_wire.hpp"
#include "actors/provider/wire_json.hpp"
#include "actors/common/strings.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

constexpr std::string_view think_open = "<think>";
constexpr std::string_view think_close = "</think>";
constexpr std::string_view call_open = "<tool_call>";
constexpr std::string_view call_close = "</tool_call>";

/// "```json\n{...}\n```" -> "{...}".
std::string_view unfence(std::string_view s) {
  s = trim_view(s);
  if (!s.starts_with("```"))
    return s;
  auto nl = s.find('\n');
  if (nl == std::string_view::npos)
    return s;
  s.remove_prefix(nl + 1);
  s = trim_view(s);
  if (s.ends_with("```"))
    s.remove_suffix(3);
  return trim_view(s);
}

/// The call a <tool_call> block describes, if it is one.
std::optional<tool_call> parse_call(std::string_view inner) {
  std::string why;
  auto doc = wire::parse_bounded(unfence(inner), why);
  if (!doc.is_object())
    return std::nullopt;
  auto name = wire::string_field(doc, "name");
  if (name.empty())
    return std::nullopt;
  tool_call call;
  call.id = wire::string_field(doc, "id");
  if (call.id.empty())
    call.id = make_tool_call_id();
  call.name = std::move(name);
  auto args = doc.contains("arguments") ? doc["arguments"]
              : doc.contains("parameters") ? doc["parameters"]
                                           : json::object();
  call.arguments_json = args.is_null() ? "{}" : wire::arguments_text(args);
  return call;
}

void append_reasoning(std::string& into, std::string_view text) {
  text = trim_view(text);
  if (text.empty())
    return;
  if (!into.empty())
    into += "\n";
  into.append(text);
}

/// Moves <think> blocks (and a bare "...</think>" opening) to `reasoning`.
std::string strip_thinking(const std::string& content, std::string& reasoning) {
  std::string out;
  size_t pos = 0;
  auto first_close = content.find(think_close);
  auto first_open = content.find(think_open);
  if (first_close != std::string::npos
      && (first_open == std::string::npos || first_open > first_close)) {
    // Some servers drop the opening tag: everything before is thinking.
    append_reasoning(reasoning, std::string_view{content}.substr(0, first_close));
    pos = first_close + think_close.size();
  }
  while (pos < content.size()) {
    auto open = content.find(think_open, pos);
    if (open == std::string::npos) {
      out.append(content, pos);
      break;
    }
    out.append(content, pos, open - pos);
    auto body = open + think_open.size();
    auto close = content.find(think_close, body);
    auto end = close == std::string::npos ? content.size() : close;
    append_reasoning(reasoning, std::string_view{content}.substr(body, end - body));
    pos = close == std::string::npos ? content.size()
                                     : close + think_close.size();
  }
  return out;
}

/// True when `tail` could be the beginning of `tag`.
bool may_start(std::string_view tail, std::string_view tag) {
  return tail.size() < tag.size() && tag.starts_with(tail);
}

} // namespace

void apply_text_quirks(model_reply& reply) {
  auto& c = reply.content;
  if (c.find('<') == std::string::npos)
    return;
  std::string reasoning;
  auto text = strip_thinking(c, reasoning);
  if (!reasoning.empty()) {
    if (!reply.reasoning_content.empty())
      reply.reasoning_content += "\n";
    reply.reasoning_content += reasoning;
  }
  std::string visible;
  std::vector<tool_call> calls;
  size_t pos = 0;
  while (pos < text.size()) {
    auto open = text.find(call_open, pos);
    if (open == std::string::npos) {
      visible.append(text, pos);
      break;
    }
    auto body = open + call_open.size();
    auto close = text.find(call_close, body);
    auto end = close == std::string::npos ? text.size() : close;
    auto after = close == std::string::npos ? text.size()
                                            : close + call_close.size();
    auto call = parse_call(std::string_view{text}.substr(body, end - body));
    visible.append(text, pos, open - pos);
    if (call)
      calls.push_back(std::move(*call));
    else
      visible.append(text, open, after - open);
    pos = after;
  }
  bool changed = visible.size() != c.size() || !reasoning.empty();
  if (!changed)
    return;
  c = std::string{trim_view(visible)};
  if (!calls.empty() && reply.tool_calls.empty()) {
    reply.tool_calls = std::move(calls);
    if (reply.finish_reason.empty() || reply.finish_reason == "stop")
      reply.finish_reason = "tool_calls";
  }
}

void quirk_filter::emit(std::vector<stream_piece>& out, std::string text,
                        bool reasoning) {
  if (text.empty())
    return;
  if (!out.empty() && out.back().reasoning == reasoning)
    out.back().text += text;
  else
    out.push_back({std::move(text), reasoning});
}

std::vector<stream_piece> quirk_filter::feed(std::string_view piece) {
  std::vector<stream_piece> out;
  held_.append(piece);
  for (;;) {
    if (mode_ == mode::text) {
      auto lt = held_.find('<');
      emit(out, held_.substr(0, lt), false);
      if (lt == std::string::npos) {
        held_.clear();
        return out;
      }
      held_.erase(0, lt);
      std::string_view rest{held_};
      if (rest.starts_with(think_open)) {
        mode_ = mode::think;
        held_.erase(0, think_open.size());
      } else if (rest.starts_with(call_open)) {
        mode_ = mode::tool_call;
        held_.erase(0, call_open.size());
      } else if (may_start(rest, think_open) || may_start(rest, call_open)) {
        return out; // wait for more text
      } else {
        emit(out, "<", false);
        held_.erase(0, 1);
      }
      continue;
    }
    auto close = mode_ == mode::think ? think_close : call_close;
    auto at = held_.find(close);
    if (at != std::string::npos) {
      if (mode_ == mode::think)
        emit(out, held_.substr(0, at), true);
      held_.erase(0, at + close.size());
      mode_ = mode::text;
      continue;
    }
    // Keep only what may be the start of the closing tag.
    auto keep = std::min(held_.size(), close.size() - 1);
    while (keep > 0 && !close.starts_with(std::string_view{held_}.substr(
                         held_.size() - keep)))
      --keep;
    if (mode_ == mode::think)
      emit(out, held_.substr(0, held_.size() - keep), true);
    held_.erase(0, held_.size() - keep);
    return out;
  }
}

std::vector<stream_piece> quirk_filter::flush() {
  std::vector<stream_piece> out;
  if (mode_ != mode::tool_call)
    emit(out, std::move(held_), mode_ == mode::think);
  held_.clear();
  mode_ = mode::text;
  return out;
}

} // namespace nb

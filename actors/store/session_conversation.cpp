// The provider_state line <-> conversation_state (see the header).
#include "actors/store/session_conversation.hpp"

#include <algorithm>

#include "actors/common/image_content.hpp"

namespace nb::session_format {

namespace {

/// A user message stored with its attachments ("media": paths) as the
/// model is given it: image_url parts (data URLs) before its text, as the
/// original's pending messages hold its images.
std::string pending_with_images(const std::string& text) {
  if (text.find("\"media\"") == std::string::npos)
    return text;
  auto m = nlohmann::json::parse(text, nullptr, false);
  if (!m.is_object() || m.value("role", "") != "user" || !m.contains("media")
      || !m["media"].is_array() || !m.contains("content")
      || !m["content"].is_string())
    return text;
  std::vector<std::string> paths;
  for (auto& p : m["media"])
    if (p.is_string())
      paths.push_back(p.get<std::string>());
  m["content"] = user_content(m["content"].get<std::string>(), paths);
  return m.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The "state" value's text in a record line `{"_type": "provider_state",
/// "state": {...}}` (its only other key), as written: a large record is
/// not serialised again. Empty when the line is not laid out so.
std::string_view state_text_of_line(std::string_view line) {
  auto at = line.find("\"provider_state\"");
  if (at == std::string_view::npos)
    return {};
  at += sizeof("\"provider_state\"") - 1;
  auto key = line.find("\"state\"", at);
  if (key == std::string_view::npos
      || line.substr(at, key - at).find_first_not_of(" \t,")
           != std::string_view::npos)
    return {};
  auto colon = line.find(':', key + 7);
  auto open = line.find('{', colon);
  auto close = line.rfind('}'); // the record's own
  if (colon == std::string_view::npos || open == std::string_view::npos
      || close == std::string_view::npos || close <= open
      || line.substr(key + 7, open - key - 7).find_first_not_of(" \t:")
           != std::string_view::npos)
    return {};
  auto value = line.substr(open, close - open);
  auto end = value.find_last_not_of(" \t\r");
  return end == std::string_view::npos || value[end] != '}'
           ? std::string_view{}
           : value.substr(0, end + 1);
}

} // namespace

std::string conversation_line(const conversation_state& state) {
  if (!state.record)
    return "";
  std::string line = R"({"_type":"provider_state","state":)";
  line += *state.record;
  line += '}';
  if (!state.pending.empty())
    line = provider_state_with_pending(line, state.pending);
  return line + "\n";
}

conversation_state conversation_of_line(std::string_view line) {
  conversation_state out;
  if (line.empty())
    return out;
  // Unordered: checked, not rewritten (the record is kept as written).
  using checked = nlohmann::json;
  auto record = checked::parse(line.begin(), line.end(), nullptr, false);
  if (!record.is_object() || !record.contains("state"))
    return out;
  auto& state = record["state"];
  auto text_field = [&](const char* key) {
    auto it = state.find(key);
    return it != state.end() && it->is_string()
           && !it->get_ref<const std::string&>().empty();
  };
  if (!state.is_object() || !text_field("kind") || !text_field("provider")
      || !text_field("model"))
    return out;
  auto version = state.find("version");
  auto payload = state.find("payload");
  if (version == state.end() || !version->is_number_integer()
      || payload == state.end() || !payload->is_object())
    return out;
  if (auto pending = state.find("pending_messages"); pending != state.end()) {
    if (!pending->is_array()
        || !std::all_of(pending->begin(), pending->end(),
                        [](const checked& m) { return m.is_object(); }))
      return out;
  }
  auto raw = record.size() == 2 ? state_text_of_line(line) : std::string_view{};
  out.record = std::make_shared<const std::string>(
    !raw.empty() ? std::string{raw}
                 : state.dump(-1, ' ', false, checked::error_handler_t::replace));
  return out;
}

conversation_state conversation_of_head(std::string_view head,
                                        bool& has_line) {
  auto nl = head.find('\n');
  auto second = nl == std::string_view::npos ? std::string_view{}
                                             : head.substr(nl + 1);
  second = second.substr(0, second.find('\n'));
  has_line = is_provider_state_line(second);
  return has_line ? conversation_of_line(second) : conversation_state{};
}

std::optional<std::vector<std::string>>
messages_after_state(const std::vector<std::string>& old_tail,
                     const std::vector<std::string>& messages) {
  if (messages.size() < old_tail.size())
    return std::nullopt;
  // Compared as values: our sessions write keys in another order.
  using unordered = nlohmann::json;
  for (size_t i = 0; i < old_tail.size(); ++i)
    if (unordered::parse(old_tail[i], nullptr, false)
        != unordered::parse(messages[i], nullptr, false))
      return std::nullopt;
  return std::vector<std::string>(messages.begin() + old_tail.size(),
                                  messages.end());
}

std::string state_line_continued(std::string_view line,
                                 std::vector<std::string> after) {
  if (after.empty())
    return std::string{line};
  for (auto& text : after)
    text = pending_with_images(text);
  return provider_state_with_pending(line, after);
}

std::string carried_provider_state(const parsed_file& old,
                                   const std::vector<std::string>& messages,
                                   uint64_t keep) {
  if (old.provider_state_line.empty())
    return "";
  auto from = std::min<size_t>(keep, old.messages.size());
  std::vector<std::string> tail(old.messages.begin() + from,
                                old.messages.end());
  auto after = messages_after_state(tail, messages);
  if (!after)
    return "";
  return state_line_continued(old.provider_state_line, std::move(*after))
         + "\n";
}

} // namespace nb::session_format

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
  auto record = json::parse(line.begin(), line.end(), nullptr, false);
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
                        [](const json& m) { return m.is_object(); }))
      return out;
  }
  out.record = std::make_shared<const std::string>(
    state.dump(-1, ' ', false, json::error_handler_t::replace));
  return out;
}

std::string carried_provider_state(const parsed_file& old,
                                   const std::vector<std::string>& messages,
                                   uint64_t keep) {
  if (old.provider_state_line.empty()
      || keep + messages.size() < old.messages.size())
    return "";
  // Compared as values: our sessions write keys in another order.
  using unordered = nlohmann::json;
  for (auto i = keep; i < old.messages.size(); ++i)
    if (unordered::parse(old.messages[i], nullptr, false)
        != unordered::parse(messages[i - keep], nullptr, false))
      return "";
  auto covered =
    old.messages.size() - std::min<size_t>(keep, old.messages.size());
  std::vector<std::string> after(messages.begin() + covered, messages.end());
  for (auto& text : after)
    text = pending_with_images(text);
  if (after.empty())
    return old.provider_state_line + "\n";
  return provider_state_with_pending(old.provider_state_line, after) + "\n";
}

} // namespace nb::session_format

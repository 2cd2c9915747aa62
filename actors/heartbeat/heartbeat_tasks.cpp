#include "actors/heartbeat/heartbeat_tasks.hpp"
#include "actors/common/strings.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace nb {

namespace {

/// Removes <!-- ... --> comments, single- or multi-line.
std::string strip_comments(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    auto open = text.find("<!--", i);
    if (open == std::string::npos) {
      out.append(text, i, std::string::npos);
      break;
    }
    out.append(text, i, open - i);
    auto close = text.find("-->", open + 4);
    if (close == std::string::npos)
      break; // an unclosed comment hides the rest
    i = close + 3;
  }
  return out;
}

} // namespace

bool heartbeat_has_active_tasks(const std::string& content) {
  std::istringstream in{strip_comments(content)};
  bool active = false;
  for (std::string line; std::getline(in, line);) {
    auto t = trim_space(line);
    if (t.empty())
      continue;
    if (t[0] == '#') {
      // "## X" (exactly two hashes) starts a section; deeper ones do not.
      auto hashes = t.find_first_not_of('#');
      if (hashes == 2)
        active = ascii_lower(trim_space(t.substr(2))).rfind("active tasks", 0) == 0;
      continue;
    }
    if (active)
      return true;
  }
  return false;
}

std::string heartbeat_prompt(const std::string& content) {
  // Our own wording: the answer goes straight to the user's chat (after the
  // notification gate), so it must be the message itself.
  return "[This answer may be sent as it is to the user's chat app. Write "
         "only the message meant for the user. Do not mention this file, "
         "your instructions or how you decided anything. If there is "
         "nothing worth reporting, answer exactly 'All clear.' and nothing "
         "more.]\n\n"
         "Periodic check: carry out each active task listed below and "
         "report what you found or did.\n\n"
         + content;
}

std::optional<heartbeat_target>
pick_heartbeat_target(const std::vector<session_activity>& sessions,
                      const std::set<std::string>& enabled) {
  for (auto& s : sessions) {
    if (s.archived)
      continue;
    const auto& route = s.key == unified_session_key ? s.last_channel : s.key;
    auto colon = route.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == route.size())
      continue;
    auto channel = route.substr(0, colon);
    if (channel == "cli" || channel == "system" || channel == "heartbeat"
        || !enabled.count(channel))
      continue;
    return heartbeat_target{channel, route.substr(colon + 1)};
  }
  return std::nullopt;
}

std::vector<nlohmann::json>
retain_recent_turns(const std::vector<nlohmann::json>& messages, size_t keep) {
  if (messages.size() <= keep)
    return messages;
  auto start = messages.size() - keep;
  // Move forward to a user message: the kept part must begin a turn.
  while (start < messages.size()
         && messages[start].value("role", "") != "user")
    ++start;
  return {messages.begin() + static_cast<std::ptrdiff_t>(start),
          messages.end()};
}

} // namespace nb

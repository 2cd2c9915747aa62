#include "actors/session/transcript.hpp"

#include <chrono>
#include <ctime>
#include <set>

namespace nb {

using json = nlohmann::json;

std::vector<json> parse_messages(const std::vector<std::string>& texts) {
  std::vector<json> out;
  out.reserve(texts.size());
  for (auto& t : texts) {
    auto j = json::parse(t, nullptr, false);
    if (j.is_object())
      out.push_back(std::move(j));
  }
  return out;
}

namespace {

std::string role_of(const json& m) {
  auto i = m.find("role");
  return i != m.end() && i->is_string() ? i->get<std::string>() : "";
}

bool is_command(const json& m) {
  auto i = m.find("_command");
  return i != m.end() && i->is_boolean() && i->get<bool>();
}

} // namespace

std::vector<json> repair_tail(const std::vector<json>& transcript) {
  std::vector<json> fixes;
  // The last assistant message with tool calls, and the results after it.
  for (size_t i = transcript.size(); i-- > 0;) {
    const auto& m = transcript[i];
    auto role = role_of(m);
    if (role == "tool")
      continue;
    if (role == "assistant" && m.contains("tool_calls")
        && m["tool_calls"].is_array()) {
      std::set<std::string> answered;
      for (size_t k = i + 1; k < transcript.size(); ++k)
        if (role_of(transcript[k]) == "tool"
            && transcript[k].value("tool_call_id", json()).is_string())
          answered.insert(transcript[k]["tool_call_id"].get<std::string>());
      for (auto& call : m["tool_calls"]) {
        if (!call.is_object() || !call.value("id", json()).is_string())
          continue;
        auto id = call["id"].get<std::string>();
        if (answered.count(id))
          continue;
        std::string name;
        if (call.contains("function") && call["function"].is_object()
            && call["function"].value("name", json()).is_string())
          name = call["function"]["name"].get<std::string>();
        fixes.push_back({{"role", "tool"},
                         {"tool_call_id", id},
                         {"name", name},
                         {"content", interrupted_tool_note}});
      }
    }
    break;
  }
  // A user message nobody answered; tool repairs above need an answer too.
  std::string last_role;
  for (size_t i = transcript.size(); i-- > 0;) {
    if (!is_command(transcript[i])) {
      last_role = role_of(transcript[i]);
      break;
    }
  }
  if (last_role == "user" || !fixes.empty())
    fixes.push_back({{"role", "assistant"}, {"content", interrupted_turn_note}});
  return fixes;
}

json replay_history(const std::vector<json>& transcript, size_t limit,
                    size_t first) {
  std::vector<const json*> kept;
  for (size_t i = first; i < transcript.size(); ++i)
    if (!is_command(transcript[i]))
      kept.push_back(&transcript[i]);
  size_t start = kept.size() > limit ? kept.size() - limit : 0;
  while (start < kept.size() && role_of(*kept[start]) != "user")
    ++start;
  json out = json::array();
  for (size_t i = start; i < kept.size(); ++i) {
    json m = json::object();
    for (auto& [k, v] : kept[i]->items())
      if (k == "role" || k == "content" || k == "tool_calls"
          || k == "tool_call_id" || k == "name")
        m[k] = v;
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

std::string iso_at(std::chrono::system_clock::time_point now) {
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

} // namespace

std::string iso_now() {
  return iso_at(std::chrono::system_clock::now());
}

std::string iso_minus(std::chrono::milliseconds ago) {
  return iso_at(std::chrono::system_clock::now() - ago);
}

} // namespace nb

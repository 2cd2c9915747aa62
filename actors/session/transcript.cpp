#include "actors/session/transcript.hpp"

#include <chrono>
#include <ctime>
#include <set>

#include "actors/tools/cli_app_mentions.hpp"

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

std::string role_of(const json& m) {
  if (!m.is_object())
    return "";
  auto i = m.find("role");
  return i != m.end() && i->is_string() ? i->get<std::string>() : "";
}

bool is_command(const json& m) {
  if (!m.is_object())
    return false;
  auto i = m.find("_command");
  return i != m.end() && i->is_boolean() && i->get<bool>();
}

namespace {

bool is_text(const json& j, const char* key) {
  auto i = j.find(key);
  return i != j.end() && i->is_string();
}

/// Content as providers take it: a string, or parts that are objects with
/// a type (text parts with text). Anything else is written out as text.
json replayable_content(const json& c, const std::string& role) {
  if (c.is_string())
    return c;
  if (c.is_null())
    return role == "assistant" ? c : json("");
  if (c.is_array()) {
    json parts = json::array();
    for (auto& p : c)
      if (p.is_object() && is_text(p, "type")
          && (p["type"] != "text" || is_text(p, "text")))
        parts.push_back(p);
    return parts.empty() ? json("") : parts;
  }
  return c.dump();
}

/// Tool calls that name a function with an id; arguments become a string.
json replayable_calls(const json& calls) {
  json out = json::array();
  if (!calls.is_array())
    return out;
  for (auto& c : calls) {
    if (!c.is_object() || !is_text(c, "id") || !c.contains("function")
        || !c["function"].is_object() || !is_text(c["function"], "name"))
      continue;
    json call = c;
    call["type"] = "function";
    auto& fn = call["function"];
    if (!fn.contains("arguments") || fn["arguments"].is_null())
      fn["arguments"] = "{}";
    else if (!fn["arguments"].is_string())
      fn["arguments"] = fn["arguments"].dump();
    out.push_back(std::move(call));
  }
  return out;
}

} // namespace

json replayable(const json& m) {
  auto role = role_of(m);
  if (role != "user" && role != "assistant" && role != "tool"
      && role != "system")
    return nullptr;
  if (role == "tool" && !is_text(m, "tool_call_id"))
    return nullptr;
  json out{{"role", role}};
  auto c = m.find("content");
  out["content"] = replayable_content(c == m.end() ? json() : *c, role);
  if (role == "assistant" && m.contains("tool_calls")) {
    auto calls = replayable_calls(m["tool_calls"]);
    if (!calls.empty())
      out["tool_calls"] = std::move(calls);
  }
  if (role == "assistant" && out["content"].is_null()
      && !out.contains("tool_calls"))
    out["content"] = "";
  if (role == "tool")
    out["tool_call_id"] = m["tool_call_id"];
  if (is_text(m, "name"))
    out["name"] = m["name"];
  return out;
}

std::vector<json> repair_tail(const transcript_entries& transcript) {
  std::vector<json> fixes;
  // The last assistant message with tool calls, and the results after it.
  for (size_t i = transcript.size(); i-- > 0;) {
    const json& m = transcript[i];
    auto role = role_of(m);
    if (role == "tool")
      continue;
    if (role == "assistant" && m.contains("tool_calls")
        && m["tool_calls"].is_array()) {
      std::set<std::string> answered;
      for (size_t k = i + 1; k < transcript.size(); ++k)
        if (const json& r = transcript[k];
            role_of(r) == "tool" && r.value("tool_call_id", json()).is_string())
          answered.insert(r["tool_call_id"].get<std::string>());
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

namespace {

/// A user line that kept the WebUI's attached apps but no runtime context
/// of its own (ours never keep one; the original's keep theirs in the
/// text, marked "_runtime_context"): the original's replay names the apps
/// again after the text.
void add_cli_app_breadcrumbs(json& replayed, const json& stored) {
  auto apps = stored.find(cli_apps_meta_key);
  if (role_of(stored) != "user" || apps == stored.end()
      || (stored.contains("_runtime_context")
          && stored["_runtime_context"].is_object())
      || !replayed["content"].is_string())
    return;
  auto lines = cli_app_replay_breadcrumbs(*apps);
  if (lines.empty())
    return;
  auto text = replayed["content"].get<std::string>();
  replayed["content"] = text.empty() ? lines : text + "\n" + lines;
}

shared_model_message replay_of(const std::shared_ptr<const json>& line) {
  const json& m = *line;
  if (is_command(m))
    return nullptr;
  auto r = replayable(m);
  if (r.is_null())
    return nullptr;
  add_cli_app_breadcrumbs(r, m);
  return std::make_shared<const model_message>(line, std::move(r));
}

/// An assistant line's usage object as compact text, taken out of it.
std::string transcript_take_usage(json& m) {
  if (!m.is_object() || role_of(m) != "assistant")
    return {};
  auto u = m.find("usage");
  if (u == m.end() || !u->is_object())
    return {};
  std::string text;
  try {
    text = u->dump();
  } catch (const json::exception&) {
    return {}; // text that is not UTF-8: kept in the message as it was
  }
  text.shrink_to_fit();
  m.erase(u);
  return text;
}

} // namespace

transcript_entry::transcript_entry(json message) {
  auto usage = transcript_take_usage(message);
  line_ = std::make_shared<const line>(line{std::move(message), std::move(usage)});
  // The made message shares the line (and so reads the message in it).
  replay_ = replay_of(std::shared_ptr<const json>(line_, &line_->message));
}

json transcript_entry::usage() const {
  if (!line_->usage.empty())
    return json::parse(line_->usage);
  // One that could not be written as text stayed in the message.
  const json& m = line_->message;
  auto u = m.find("usage");
  return role_of(m) == "assistant" && u != m.end() && u->is_object() ? *u
                                                                      : json();
}

std::string transcript_entry::stored_text() const {
  if (line_->usage.empty())
    return line_->message.dump();
  auto whole = line_->message;
  whole["usage"] = json::parse(line_->usage);
  return whole.dump();
}

recorded_usage recorded_usage_of(const transcript_entry& e) {
  recorded_usage out;
  out.usage = e.usage();
  if (out.usage.is_null())
    return out;
  const json& m = e.message();
  auto mi = m.find("model");
  out.model = mi != m.end() && mi->is_string() ? mi->get<std::string>() : "?";
  return out;
}

std::vector<shared_model_message> replay_history(
  const transcript_entries& transcript, size_t limit, size_t first) {
  // From the end back: only the last `limit` replayable messages are
  // taken, so a long chat's turn does not walk its whole history.
  std::vector<shared_model_message> kept;
  for (size_t i = transcript.size(); i-- > first && kept.size() < limit;)
    if (auto& m = transcript[i].replay())
      kept.push_back(m);
  // The replay starts with a user message.
  while (!kept.empty() && kept.back()->role() != message_role::user)
    kept.pop_back();
  return {kept.rbegin(), kept.rend()};
}

} // namespace nb

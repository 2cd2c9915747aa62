#include "actors/runner/context_governor.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actors/runner/turn_texts.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

constexpr int64_t safety_buffer = 1024;
constexpr size_t compact_min_chars = 500;
constexpr const char* backfill_text
  = "Error: this tool call was interrupted or its result was lost.";
constexpr const char* truncated_suffix = "\n... (truncated)";

enum class kind { system, user, assistant, tool, other };

/// One message on its way through the pipeline: the caller's element until
/// a step changes it, so the input is copied once, at the very end.
struct entry {
  const json* orig = nullptr;
  json own;
  bool owned = false;
  kind k = kind::other;
  int64_t tokens = 0;

  const json& get() const { return owned ? own : *orig; }
  json& make_owned() {
    if (!owned) {
      own = *orig;
      owned = true;
    }
    return own;
  }
};

using entries = std::vector<entry>;

kind kind_of(const json& m) {
  auto it = m.find("role");
  if (it == m.end() || !it->is_string())
    return kind::other;
  const auto& r = it->get_ref<const std::string&>();
  if (r == "system") return kind::system;
  if (r == "user") return kind::user;
  if (r == "assistant") return kind::assistant;
  if (r == "tool") return kind::tool;
  return kind::other;
}

size_t json_size(const json& j) {
  switch (j.type()) {
    case json::value_t::string:
      return j.get_ref<const std::string&>().size() + 2;
    case json::value_t::object: {
      size_t n = 2 + (j.empty() ? 0 : j.size() - 1);
      for (auto it = j.begin(); it != j.end(); ++it)
        n += it.key().size() + 3 + json_size(it.value());
      return n;
    }
    case json::value_t::array: {
      size_t n = 2 + (j.empty() ? 0 : j.size() - 1);
      for (auto& x : j)
        n += json_size(x);
      return n;
    }
    case json::value_t::boolean: return j.get<bool>() ? 4 : 5;
    case json::value_t::null: return 4;
    case json::value_t::number_float: return 12;
    default: return 8; // integers
  }
}

int64_t message_tokens(const json& m) {
  return static_cast<int64_t>((json_size(m) + 3) / 4) + 4;
}

std::string_view str_or_empty(const json& obj, const char* key) {
  if (!obj.is_object())
    return {};
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string())
    return {};
  return it->get_ref<const std::string&>();
}

bool has_content(const json& m) {
  auto it = m.find("content");
  if (it == m.end() || it->is_null())
    return false;
  if (it->is_string() || it->is_array() || it->is_object())
    return !it->empty();
  return true;
}

bool is_placeholder(const json& m) {
  if (str_or_empty(m, "content") != texts::reply_unavailable)
    return false;
  auto it = m.find("tool_calls");
  return it == m.end() || it->is_null() || (it->is_array() && it->empty());
}

/// Step 2 for one assistant message; false when the message must go.
bool clean_calls(entry& e, std::unordered_set<std::string_view>& declared) {
  const json& m = *e.orig;
  auto it = m.find("tool_calls");
  if (it == m.end())
    return true;
  json kept = json::array();
  bool changed = !it->is_array();
  if (it->is_array()) {
    for (auto& c : *it) {
      auto id = str_or_empty(c, "id");
      auto fn = c.is_object() ? c.find("function") : c.end();
      bool ok = !id.empty() && fn != c.end()
                && !str_or_empty(*fn, "name").empty()
                && declared.insert(id).second;
      if (ok)
        kept.push_back(c);
      else
        changed = true;
    }
  }
  if (!changed)
    return true;
  if (kept.empty() && !has_content(m))
    return false;
  auto& own = e.make_owned();
  if (kept.empty())
    own.erase("tool_calls");
  else
    own["tool_calls"] = std::move(kept);
  return true;
}

struct pending_call {
  std::string id;
  std::string name;
  bool answered = false;
};

entry synthetic_result(const pending_call& c) {
  entry e;
  e.own = {{"role", "tool"}, {"tool_call_id", c.id}, {"name", c.name},
           {"content", backfill_text}};
  e.owned = true;
  e.k = kind::tool;
  e.tokens = message_tokens(e.own);
  return e;
}

/// Steps 3 and 4: every group of tool messages answers exactly the calls of
/// the assistant message right before it.
entries repair_pairs(entries in) {
  entries out;
  out.reserve(in.size() + 8);
  std::vector<pending_call> group;
  auto close_group = [&] {
    for (auto& c : group)
      if (!c.answered)
        out.push_back(synthetic_result(c));
    group.clear();
  };
  for (auto& e : in) {
    if (e.k == kind::tool) {
      auto id = str_or_empty(e.get(), "tool_call_id");
      auto hit = std::find_if(group.begin(), group.end(), [&](auto& c) {
        return !c.answered && c.id == id;
      });
      if (hit == group.end())
        continue; // orphan or duplicate
      hit->answered = true;
      out.push_back(std::move(e));
      continue;
    }
    close_group();
    if (e.k == kind::assistant) {
      auto it = e.get().find("tool_calls");
      if (it != e.get().end() && it->is_array())
        for (auto& c : *it) {
          auto fn = c.is_object() ? c.find("function") : c.end();
          auto name = fn != c.end() ? str_or_empty(*fn, "name") : "";
          group.push_back({std::string(str_or_empty(c, "id")),
                           std::string(name)});
        }
    }
    out.push_back(std::move(e));
  }
  close_group();
  return out;
}

/// Cuts at `max` bytes without splitting a UTF-8 sequence.
std::string truncate_utf8(const std::string& s, size_t max) {
  size_t cut = std::min(max, s.size());
  while (cut > 0 && cut < s.size()
         && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return s.substr(0, cut) + truncated_suffix;
}

/// Step 5 for one tool message.
void normalise_result(entry& e, size_t max_chars) {
  const json& m = e.get();
  auto it = m.find("content");
  if (it != m.end() && it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    if (s.size() > max_chars)
      e.make_owned()["content"] = truncate_utf8(s, max_chars);
    else if (s.empty())
      e.make_owned()["content"] = "(" + std::string(str_or_empty(m, "name"))
                                  + " completed with no output)";
    return;
  }
  if (it != m.end() && it->is_array() && !it->empty())
    return; // content parts (text, images): providers accept them as they are
  std::string text = (it == m.end() || it->is_null()
                      || (it->is_array() && it->empty()))
                       ? "(" + std::string(str_or_empty(m, "name"))
                           + " completed with no output)"
                       : it->dump();
  if (text.size() > max_chars)
    text = truncate_utf8(text, max_chars);
  e.make_owned()["content"] = std::move(text);
}

std::string compaction_note(std::string_view name) {
  return "Error: the earlier " + std::string(name.empty() ? "tool" : name)
         + " result was removed from the context because it was too large "
           "to fit. Do not repeat the same call unchanged. Retry with a "
           "narrower request (a smaller path, query, range or result "
           "limit), use another tool, or tell the user the task does not "
           "fit in the available context.";
}

int64_t total_of(const entries& es) {
  int64_t t = 0;
  for (auto& e : es)
    t += e.tokens;
  return t;
}

/// Step 6: compacts the current run's large results, oldest first.
void compact_current_run(entries& es, int64_t budget, int64_t& total) {
  size_t start = 0;
  for (size_t i = es.size(); i-- > 0;)
    if (es[i].k == kind::user) {
      start = i + 1;
      break;
    }
  std::vector<size_t> cands;
  for (size_t i = start; i < es.size(); ++i)
    if (es[i].k == kind::tool
        && str_or_empty(es[i].get(), "content").size() >= compact_min_chars)
      cands.push_back(i);
  auto target = budget * 85 / 100;
  for (size_t n = 0; n < cands.size(); ++n) {
    bool newest = n + 1 == cands.size();
    if (total <= target || (newest && total <= budget))
      break;
    auto& e = es[cands[n]];
    auto note = compaction_note(str_or_empty(e.get(), "name"));
    e.make_owned()["content"] = std::move(note);
    auto t = message_tokens(e.own);
    total += t - e.tokens;
    e.tokens = t;
  }
}

/// Step 7: keeps the system messages and the newest tail that fits,
/// starting at a user message.
entries snip_history(entries es, int64_t budget) {
  int64_t avail = budget;
  for (auto& e : es)
    if (e.k == kind::system)
      avail -= e.tokens;
  size_t start = es.size();
  int64_t kept = 0;
  for (size_t i = es.size(); i-- > 0;) {
    if (es[i].k == kind::system)
      continue;
    if (start != es.size() && kept + es[i].tokens > avail)
      break;
    kept += es[i].tokens;
    start = i;
  }
  size_t s = start;
  while (s < es.size() && es[s].k != kind::user)
    ++s;
  if (s == es.size()) // no user in what fits: keep from the last one
    for (s = start; s-- > 0;)
      if (es[s].k == kind::user)
        break;
  if (s > es.size()) // no user anywhere: the repair pass fixes the start
    s = start;
  entries out;
  out.reserve(es.size());
  for (size_t i = 0; i < es.size(); ++i)
    if (i >= s || es[i].k == kind::system)
      out.push_back(std::move(es[i]));
  return out;
}

/// Drops the non-system messages before the first user message.
void align_start(entries& es) {
  auto first_user = std::find_if(es.begin(), es.end(),
                                 [](auto& e) { return e.k == kind::user; });
  if (first_user == es.end())
    return;
  es.erase(std::remove_if(es.begin(), first_user,
                          [](auto& e) { return e.k != kind::system; }),
           first_user);
}

json govern(const json& messages, const governor_limits& limits) {
  if (!messages.is_array())
    return json::array();
  entries es;
  es.reserve(messages.size());
  std::unordered_set<std::string_view> declared;
  for (auto& m : messages) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      continue; // providers reject such messages outright
    entry e;
    e.orig = &m;
    e.k = kind_of(m);
    if (e.k == kind::assistant
        && (is_placeholder(m) || !clean_calls(e, declared)))
      continue;
    es.push_back(std::move(e));
  }
  es = repair_pairs(std::move(es));
  for (auto& e : es) {
    if (e.k == kind::tool)
      normalise_result(e, limits.max_tool_result_chars);
    e.tokens = message_tokens(e.get());
  }
  align_start(es);
  auto budget = input_budget(limits);
  auto total = total_of(es);
  if (total > budget)
    compact_current_run(es, budget, total);
  if (total > budget)
    es = snip_history(std::move(es), budget);
  es = repair_pairs(std::move(es));
  json out = json::array();
  auto& arr = out.get_ref<json::array_t&>();
  arr.reserve(es.size());
  for (auto& e : es)
    arr.push_back(e.owned ? std::move(e.own) : *e.orig);
  return out;
}

} // namespace

int64_t input_budget(const governor_limits& limits) {
  auto b = limits.context_window_tokens - limits.max_output_tokens
           - safety_buffer;
  return b > 0 ? b : std::max<int64_t>(128, limits.context_window_tokens / 2);
}

int64_t estimate_tokens(const json& messages) {
  if (!messages.is_array())
    return 0;
  int64_t t = 0;
  for (auto& m : messages)
    t += message_tokens(m);
  return t;
}

json govern_messages(const json& messages, const governor_limits& limits) {
  try {
    return govern(messages, limits);
  } catch (...) {
    // Only allocation failure can get here; an empty request is better
    // than an exception escaping into the runner actor.
    return json::array();
  }
}

} // namespace nb

#include "actors/runner/context_governor.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actors/runner/governor_steps.hpp"
#include "actors/runner/turn_texts.hpp"

namespace nb::governor {

namespace {

using json = nlohmann::json;

constexpr size_t compact_min_chars = 500;
constexpr const char* backfill_text
  = "Error: this tool call was interrupted or its result was lost.";
constexpr const char* truncated_suffix = "\n... (truncated)";

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

/// A call of an assistant message that survived step 2.
struct call_ref {
  std::string_view id;
  std::string_view name;
};

/// What one run of the pipeline shares across its steps.
struct pass {
  std::vector<call_ref> calls;     ///< every entry's usable calls
  std::vector<uint32_t> scratch;   ///< reused by clean_calls
  std::unordered_set<std::string_view> declared;
};

/// Step 2 for one assistant message; false when the message must go.
/// Records the usable calls in the pass; copies the message only when a
/// call has to go.
bool clean_calls(entry& e, pass& p) {
  const json& m = *e.orig;
  e.calls_from = e.calls_to = static_cast<uint32_t>(p.calls.size());
  auto it = m.find("tool_calls");
  if (it == m.end())
    return true;
  bool changed = !it->is_array();
  p.scratch.clear();
  if (it->is_array()) {
    const auto& arr = it->get_ref<const json::array_t&>();
    for (uint32_t i = 0; i < arr.size(); ++i) {
      const auto& c = arr[i];
      auto id = str_or_empty(c, "id");
      auto fn = c.is_object() ? c.find("function") : c.end();
      auto name = fn != c.end() ? str_or_empty(*fn, "name") : "";
      if (!id.empty() && !name.empty() && p.declared.insert(id).second) {
        p.calls.push_back({id, name});
        p.scratch.push_back(i);
      } else {
        changed = true;
      }
    }
  }
  e.calls_to = static_cast<uint32_t>(p.calls.size());
  if (!changed)
    return true;
  if (p.scratch.empty() && !has_content(m))
    return false;
  json kept = json::array();
  for (auto i : p.scratch)
    kept.push_back((*it)[i]);
  auto& own = e.make_owned();
  if (kept.empty())
    own.erase("tool_calls");
  else
    own["tool_calls"] = std::move(kept);
  return true;
}

entry synthetic_result(const call_ref& c) {
  entry e;
  e.own = {{"role", "tool"}, {"tool_call_id", c.id}, {"name", c.name},
           {"content", backfill_text}};
  e.owned = true;
  e.k = kind::tool;
  e.tokens = message_tokens(e.own);
  e.call_id = c.id;
  return e;
}

/// Steps 3 and 4: every group of tool messages answers exactly the calls of
/// the assistant message right before it.
entries repair_pairs(entries in, const pass& p) {
  entries out;
  out.reserve(in.size() + 8);
  uint32_t from = 0, to = 0; // the open group's calls
  std::vector<bool> answered;
  auto close_group = [&] {
    for (auto i = from; i < to; ++i)
      if (!answered[i - from])
        out.push_back(synthetic_result(p.calls[i]));
    from = to = 0;
  };
  for (auto& e : in) {
    if (e.k == kind::tool) {
      uint32_t i = from;
      while (i < to && (answered[i - from] || p.calls[i].id != e.call_id))
        ++i;
      if (i == to)
        continue; // orphan or duplicate
      answered[i - from] = true;
      out.push_back(std::move(e));
      continue;
    }
    close_group();
    if (e.k == kind::assistant && e.calls_to > e.calls_from) {
      from = e.calls_from;
      to = e.calls_to;
      answered.assign(to - from, false);
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

} // namespace

entries govern_entries(const std::vector<input>& messages,
                       const governor_limits& limits) {
  entries es;
  es.reserve(messages.size());
  pass p;
  for (size_t i = 0; i < messages.size(); ++i) {
    const auto& m = *messages[i].message;
    auto k = messages[i].role ? *messages[i].role : role_of_message(m);
    if (k == kind::none)
      continue; // providers reject such messages outright
    entry e;
    e.orig = &m;
    e.line = messages[i].line;
    e.index = i;
    e.k = k;
    if (e.k == kind::assistant && (is_placeholder(m) || !clean_calls(e, p)))
      continue;
    if (e.k == kind::tool)
      e.call_id = str_or_empty(m, "tool_call_id");
    es.push_back(std::move(e));
  }
  es = repair_pairs(std::move(es), p);
  for (auto& e : es) {
    if (e.k == kind::tool)
      normalise_result(e, limits.max_tool_result_chars);
    auto ready = e.owned ? -1 : messages[e.index].tokens;
    e.tokens = ready >= 0 ? ready : message_tokens(e.get());
  }
  align_start(es);
  auto budget = input_budget(limits);
  auto total = total_of(es);
  if (total > budget)
    compact_current_run(es, budget, total);
  if (total > budget)
    es = snip_history(std::move(es), budget);
  return repair_pairs(std::move(es), p);
}


} // namespace nb::governor

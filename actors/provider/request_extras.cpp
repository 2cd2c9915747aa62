#include "actors/provider/request_extras.hpp"

#include <algorithm>
#include <regex>

#include "actors/common/strings.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// `over` merged into `base`: nested objects key by key.
void deep_merge(json& base, const json& over) {
  for (auto& [key, value] : over.items()) {
    auto at = base.find(key);
    if (at != base.end() && at->is_object() && value.is_object())
      deep_merge(*at, value);
    else
      base[key] = value;
  }
}

/// "claude-opus-4-7-20260101" -> family "opus", version 4.7; false when the
/// name is not of that shape.
bool claude_version(const std::string& model, std::string& family, int& major,
                    int& minor) {
  static const std::regex shape{
    "claude-([a-z]+)-([0-9]+)(-([0-9]{1,2})(-|$))?"};
  std::smatch m;
  auto lower = ascii_lower(model);
  if (!std::regex_search(lower, m, shape))
    return false;
  family = m[1];
  major = std::stoi(m[2]);
  minor = m[4].matched ? std::stoi(m[4]) : 0;
  return true;
}

/// Whether `model` is at least the version listed for its family.
bool claude_at_least(const std::string& model,
                     const std::map<std::string, std::pair<int, int>>& min) {
  std::string family;
  int major = 0, minor = 0;
  if (!claude_version(model, family, major, minor))
    return false;
  auto v = min.find(family);
  return v != min.end() && std::pair{major, minor} >= v->second;
}

} // namespace

void apply_openai_reasoning(json& body, const std::string& effort,
                            const std::string& style) {
  if (effort.empty())
    return;
  auto level = ascii_lower(effort);
  if (level == "minimum")
    level = "minimal";
  if (level != "none") {
    body["reasoning_effort"] = effort;
    body.erase("temperature"); // reasoning models reject one
  }
  bool thinking = level != "none" && level != "minimal";
  if (style == "thinking_type")
    body["thinking"] = {{"type", thinking ? "enabled" : "disabled"}};
  else if (style == "enable_thinking")
    body["enable_thinking"] = thinking;
  else if (style == "reasoning_split")
    body["reasoning_split"] = thinking;
}

void apply_anthropic_reasoning(json& body, const std::string& model,
                               const std::string& effort) {
  if (effort.empty())
    return;
  auto level = ascii_lower(effort);
  // Newer models take no token budget, only adaptive thinking; the newest
  // think unless told not to (the original's version tables).
  static const std::map<std::string, std::pair<int, int>> adaptive_only{
    {"opus", {4, 7}},
    {"sonnet", {5, 0}},
    {"fable", {5, 0}},
    {"mythos", {5, 0}}};
  static const std::map<std::string, std::pair<int, int>> thinks_by_default{
    {"opus", {5, 0}}, {"sonnet", {5, 0}}};
  bool adaptive = claude_at_least(model, adaptive_only);
  auto max_tokens = body.value("max_tokens", 1);
  auto warm = [&] {
    if (adaptive)
      body.erase("temperature"); // these reject sampling settings
    else
      body["temperature"] = 1.0;
  };
  if (level == "none") {
    if (claude_at_least(model, thinks_by_default))
      body["thinking"] = {{"type", "disabled"}};
  } else if (level == "adaptive") {
    body["thinking"] = {{"type", "adaptive"}};
    warm();
  } else if (adaptive) {
    body["thinking"] = {{"type", "adaptive"}};
    body["output_config"] = {{"effort", level}};
    warm();
  } else {
    int budget = level == "low"    ? 1024
                 : level == "high" ? std::max(8192, max_tokens)
                                   : 4096;
    body["thinking"] = {{"type", "enabled"}, {"budget_tokens", budget}};
    body["max_tokens"] = std::max(max_tokens, budget + 4096);
    warm();
  }
  // With thinking on, the API accepts only an automatic tool choice.
  if (body.contains("tool_choice") && body.contains("thinking")
      && body["thinking"].value("type", "") != "disabled")
    body["tool_choice"] = {{"type", "auto"}};
}

void merge_extra_body(json& body, const std::string& extra_body) {
  if (extra_body.empty())
    return;
  auto extra = json::parse(extra_body, nullptr, false);
  if (!extra.is_object())
    return; // the loader accepts objects only
  if (auto tools = extra.find("tools"); tools != extra.end()) {
    auto ours = body.find("tools");
    if (tools->is_array() && ours != body.end() && ours->is_array())
      for (auto& t : *tools)
        ours->push_back(t);
    else
      body["tools"] = *tools;
    extra.erase(tools);
  }
  deep_merge(body, extra);
}

std::string with_query(std::string path,
                       const std::map<std::string, std::string>& query) {
  char sep = path.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [key, value] : query) {
    path += sep;
    path += url_encode(key) + "=" + url_encode(value);
    sep = '&';
  }
  return path;
}

} // namespace nb

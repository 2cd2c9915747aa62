#include "actors/session/model_choice.hpp"

#include <algorithm>
#include <cctype>

#include "config/spelling.hpp"
#include "actors/common/strings.hpp"

namespace nb {

namespace {

} // namespace

model_catalog make_model_catalog(const settings& cfg) {
  model_catalog c;
  c.defaults.model = cfg.agent.model;
  c.defaults.provider = cfg.agent.provider.empty() ? "auto" : cfg.agent.provider;
  c.defaults.max_tokens = cfg.agent.max_tokens;
  c.defaults.context_window_tokens = cfg.agent.context_window_tokens;
  c.defaults.temperature = cfg.agent.temperature;
  c.defaults.reasoning_effort = cfg.agent.reasoning_effort;
  if (cfg.agent.model_preset != "default")
    c.defaults_preset = cfg.agent.model_preset;
  c.presets = cfg.model_presets;
  return c;
}

model_runtime runtime_for(const model_catalog& c, std::string_view preset) {
  auto name = find_preset(c, preset);
  auto p = c.presets.find(name);
  if (p == c.presets.end())
    return c.defaults;
  model_runtime out;
  out.preset = p->first;
  out.model = p->second.model;
  out.provider = p->second.provider.empty() ? "auto" : p->second.provider;
  out.max_tokens = p->second.max_tokens;
  out.context_window_tokens = p->second.context_window_tokens;
  out.temperature = p->second.temperature;
  out.reasoning_effort = p->second.reasoning_effort;
  return out;
}

std::string find_preset(const model_catalog& c, std::string_view name) {
  auto wanted = ascii_lower(name);
  if (wanted == "default")
    return "default";
  if (c.presets.count(std::string{name}))
    return std::string{name};
  for (auto& [n, _] : c.presets)
    if (ascii_lower(n) == wanted)
      return n;
  return {};
}

std::string closest_preset(const model_catalog& c, std::string_view name) {
  auto wanted = ascii_lower(name);
  std::string best = "default";
  auto best_distance = edit_distance(wanted, best);
  for (auto& [n, _] : c.presets) {
    auto d = edit_distance(wanted, ascii_lower(n));
    if (d < best_distance) {
      best = n;
      best_distance = d;
    }
  }
  // Close enough: at least 60 % alike, as for unknown commands.
  auto longest = std::max(wanted.size(), best.size());
  return best_distance * 5 <= longest * 2 ? best : std::string{};
}

} // namespace nb

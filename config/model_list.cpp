#include "config/model_list.hpp"
#include "config/keys.hpp"

#include <cmath>

namespace nb::config {

namespace {

using nlohmann::json;

std::string known_presets(const settings& s) {
  std::string out = "default";
  for (auto& [name, _] : s.model_presets)
    out += ", " + name;
  return out;
}

std::optional<check_failure> bad(std::string at, std::string reason) {
  return check_failure{std::move(at), std::move(reason)};
}

/// One inline entry; `at` is "[i]".
std::optional<check_failure> inline_entry(const json& x, const std::string& at,
                                          fallback_model& out) {
  for (const auto& [key, value] : x.items()) {
    auto where = at + "." + display_key(key);
    if (value.is_null())
      continue;
    if (key_matches(key, "model") || key_matches(key, "provider")) {
      if (!value.is_string())
        return bad(where, "expected a string, found " + type_name(value));
      (key_matches(key, "model") ? out.model : out.provider)
        = value.get<std::string>();
    } else if (key_matches(key, "maxTokens")
               || key_matches(key, "contextWindowTokens")) {
      double d = value.is_number() ? value.get<double>() : 0;
      if (!value.is_number() || d != std::floor(d) || d < 1 || d > i32_max)
        return bad(where, "expected a positive integer");
      (key_matches(key, "maxTokens") ? out.max_tokens
                                     : out.context_window_tokens)
        = static_cast<int32_t>(d);
    } else if (key_matches(key, "temperature")) {
      if (!value.is_number() || value.get<double>() < 0
          || value.get<double>() > 2)
        return bad(where, "must be a number between 0 and 2");
      out.temperature = value.get<double>();
    } else if (key_matches(key, "reasoningEffort")) {
      if (!value.is_string() && !value.is_null())
        return bad(where, "expected a string, found " + type_name(value));
      out.reasoning_effort = value.is_string() ? value.get<std::string>() : "";
    } else {
      return bad(where, "unknown key (expected model, provider, maxTokens, "
                        "contextWindowTokens, temperature or "
                        "reasoningEffort)");
    }
  }
  if (out.model.empty())
    return bad(at + ".model", "missing: an inline fallback needs a model");
  return std::nullopt;
}

} // namespace

std::optional<check_failure> check_model_list(const json& x, field_value& v) {
  if (!x.is_array())
    return bad("", "expected a list of preset names or {\"model\": ...} "
                   "objects, found " + type_name(x));
  for (size_t i = 0; i < x.size(); ++i) {
    auto at = "[" + std::to_string(i) + "]";
    fallback_model entry;
    if (x[i].is_string()) {
      entry.preset = x[i].get<std::string>();
      if (entry.preset.empty())
        return bad(at, "must not be empty");
    } else if (x[i].is_object()) {
      if (auto err = inline_entry(x[i], at, entry))
        return err;
    } else {
      return bad(at, "expected a preset name or an object, found "
                       + type_name(x[i]));
    }
    v.models.push_back(std::move(entry));
  }
  return std::nullopt;
}

std::optional<config_error> apply_presets(settings& s) {
  if (s.model_presets.count("default"))
    return config_error{"modelPresets.default",
                        "the name \"default\" is reserved for the "
                        "agents.defaults model; choose another name"};
  auto& fb = s.agent.fallback_models;
  for (size_t i = 0; i < fb.size(); ++i)
    if (!fb[i].preset.empty() && !s.model_presets.count(fb[i].preset))
      return config_error{"agents.defaults.fallbackModels["
                            + std::to_string(i) + "]",
                          "unknown preset \"" + fb[i].preset
                            + "\" (modelPresets has: "
                            + known_presets(s) + ")"};
  auto& name = s.agent.model_preset;
  if (name.empty() || name == "default")
    return std::nullopt;
  auto p = s.model_presets.find(name);
  if (p == s.model_presets.end())
    return config_error{"agents.defaults.modelPreset",
                        "unknown preset \"" + name + "\" (modelPresets has: "
                          + known_presets(s) + ")"};
  s.agent.model = p->second.model;
  s.agent.provider = p->second.provider;
  s.agent.max_tokens = p->second.max_tokens;
  s.agent.context_window_tokens = p->second.context_window_tokens;
  s.agent.temperature = p->second.temperature;
  s.agent.reasoning_effort = p->second.reasoning_effort;
  return std::nullopt;
}

} // namespace nb::config

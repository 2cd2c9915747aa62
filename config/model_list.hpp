// agents.defaults.fallbackModels values and the preset rules that span keys
// (agents.defaults.modelPreset, preset names in fallbackModels).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "config/pipeline.hpp"

namespace nb::config {

/// A list of preset names or inline {"model", "provider", "maxTokens",
/// "contextWindowTokens", "temperature", "reasoningEffort"} objects; the
/// failure's `at` names the entry ("[1].maxTokens").
std::optional<check_failure> check_model_list(const nlohmann::json& x,
                                              field_value& v);

/// Checks preset names and applies agents.defaults.modelPreset to
/// agents.defaults.{model, provider, maxTokens, contextWindowTokens,
/// temperature}.
std::optional<config_error> apply_presets(settings& s);

} // namespace nb::config

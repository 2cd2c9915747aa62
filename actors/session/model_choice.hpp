// A session's model runtime: which model, provider and generation settings
// its turns use, from agents.defaults or a modelPresets entry (/model).
// Pure data and functions: no actors, no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "config/settings.hpp"

namespace nb {

/// What one session's model requests carry.
struct model_runtime {
  std::string preset; ///< a modelPresets name; "" = agents.defaults
  std::string model;
  std::string provider = "auto";
  int32_t max_tokens = 8192;
  int32_t context_window_tokens = 65536;
  double temperature = 0.1;
  std::string reasoning_effort; ///< "" = the provider's default
};

/// The runtimes a session may choose from, fixed at spawn.
struct model_catalog {
  model_runtime defaults; ///< agents.defaults (with its modelPreset applied)
  std::string defaults_preset; ///< agents.defaults.modelPreset, "" = none
  std::map<std::string, model_preset> presets;
};

model_catalog make_model_catalog(const settings& cfg);

/// The runtime of `preset` ("" or "default": agents.defaults; an unknown
/// name also gives agents.defaults).
model_runtime runtime_for(const model_catalog& c, std::string_view preset);

/// The preset named `name`, compared case-insensitively: its canonical
/// name, "default" for the reserved name, or "" when there is none.
std::string find_preset(const model_catalog& c, std::string_view name);

/// The closest preset name to an unknown `name` ("" when none is close).
std::string closest_preset(const model_catalog& c, std::string_view name);

} // namespace nb

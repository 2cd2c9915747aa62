// The WebUI's first-run setup as a config edit: one provider written into
// the user's config.json, everything else in the file left as it was.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "config/load.hpp"

namespace nb {

/// What the setup page asks for.
struct provider_setup {
  std::string provider; ///< a providers.<name> key: a registry name, "custom"
  std::string api_base; ///< "" = drop providers.<name>.apiBase (the default)
  std::string api_key;  ///< "" = keep the key the file has
  std::string model;    ///< agents.defaults.model
};

/// Returns `current` (the file's text; "" = no file yet) with `s` applied:
/// agents.defaults.model and .provider, providers.<name>.apiKey and
/// .apiBase. Keys keep their spelling (api_key or apiKey, lmStudio or
/// lm_studio) and their order; keys this gateway does not know stay as they
/// are. The JSON is re-indented (two spaces). config.json has no comments to
/// keep: the loader refuses them, like the original's json.load. The error
/// names the key that is in the way ("providers: expected an object").
std::variant<std::string, config_error>
apply_provider_setup(std::string_view current, const provider_setup& s);

/// Copies the model choice of `from` into `into`: agents.defaults' model,
/// provider, modelPreset, fallbackModels and generation settings, providers
/// and modelPresets. The rest of `into` (ports, workspace, command-line
/// overrides) stays; that is what a running gateway can take over.
void adopt_model_choice(settings& into, const settings& from);

} // namespace nb

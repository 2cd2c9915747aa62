// `nanobot onboard`: a default config.json plus a workspace made from the
// embedded templates. Never overwrites anything.
#pragma once

#include <string>
#include <vector>

#include "config/load.hpp"
#include "config/templates.hpp"

namespace nb {

/// What onboarding did; paths are absolute.
struct onboard_report {
  std::string config_path;
  std::string workspace;
  std::vector<std::string> created; ///< files and directories made now
  std::vector<std::string> kept;    ///< already there, left untouched
  std::vector<std::string> errors;  ///< each names the path and the cause
  bool ok() const {
    return errors.empty();
  }
};

/// Creates workspace `ws` from the templates (main's, or a listed
/// agent's when the gateway starts): missing files are written, existing
/// ones kept; problems go to `report.errors`.
void fill_workspace(const std::string& ws, onboard_report& report);

/// Writes `config_path` with defaults (mode 0600, atomic) unless it exists,
/// then creates the workspace: the one in `workspace_override` if given
/// (also recorded in a new config), else the one the config names.
/// Existing files are kept as they are. Never throws.
onboard_report onboard(const std::string& config_path,
                       const std::string& workspace_override = "",
                       const env_lookup& env = system_env());

} // namespace nb

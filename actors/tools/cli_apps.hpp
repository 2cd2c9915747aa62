// Tools: what run_cli_app needs to know about the CLI apps the original
// installs from its Settings page: the record of installed apps
// (<config dir>/cli-apps/installed.json, {"schema_version": 1, "apps":
// {name: {"entry_point": ...}}}; an older flat {name: {...}} too) and the
// files a run created or changed in its working directory. The catalog is
// cli_catalog.hpp's, installing cli_install.hpp's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// One installed app.
struct cli_app_entry {
  std::string name;        ///< as recorded (the registry's spelling)
  std::string entry_point; ///< the program to run, found on PATH
};

/// The apps installed under `config_dir` ("" or no record: none), sorted by
/// name. A record that cannot be read counts as none.
std::vector<cli_app_entry> installed_cli_apps(const std::string& config_dir);

/// installed.json's map of apps (name -> entry as recorded; {} when there
/// is none or it cannot be read).
nlohmann::json installed_cli_record(const std::string& config_dir);

/// The key of `apps` (installed_cli_record's map) naming `name` in any
/// case, or "".
std::string installed_cli_key(const nlohmann::json& apps,
                              const std::string& name);

/// Writes `apps` as installed.json ({"schema_version": 1, "apps": apps},
/// two-space indent as the original), atomically: "" or why not.
std::string save_installed_cli_record(const std::string& config_dir,
                                      const nlohmann::json& apps);

/// Returns the executable `entry` names: itself when it has a '/', else the
/// first match on `path_var` ("" = not found).
std::string find_on_path(const std::string& entry, const std::string& path_var);

/// Artifact files below a working directory (the original's extensions,
/// build and cache folders skipped, at most 4000 paths looked at): path →
/// (mtime ns, size).
using artifact_snapshot = std::map<std::string, std::pair<int64_t, int64_t>>;

artifact_snapshot snapshot_artifacts(const std::string& dir);

/// The artifact lines of what changed since `before` in `dir` (the latest
/// 12 by time): "- rel (kind, size)"; `images` tells whether one of them
/// is a picture the WebUI can preview.
std::vector<std::string> changed_artifact_lines(const std::string& dir,
                                                const artifact_snapshot& before,
                                                bool& images);

} // namespace nb

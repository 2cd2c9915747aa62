// Onboarding: default config and workspace templates, created never
// overwritten.
#include "config/onboard.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "config/atomic_file.hpp"
#include "config/to_json.hpp"

namespace nb {

namespace {

namespace fs = std::filesystem;

std::string absolute(const std::string& path) {
  std::error_code ec;
  auto abs = fs::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

/// Creates `dir` and its missing parents with `mode`; reports only `dir`.
bool make_dir(const std::string& dir, unsigned mode, onboard_report& report,
              bool list) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    if (list)
      report.kept.push_back(dir);
    return true;
  }
  auto parent = fs::path{dir}.parent_path();
  if (!parent.empty() && parent != fs::path{dir}
      && !make_dir(parent.string(), 0755, report, false))
    return false;
  if (::mkdir(dir.c_str(), mode) != 0 && errno != EEXIST) {
    report.errors.push_back("cannot create directory " + dir + ": "
                            + std::strerror(errno));
    return false;
  }
  if (list)
    report.created.push_back(dir);
  return true;
}

void create(const std::string& path, std::string_view content, unsigned mode,
            onboard_report& report) {
  if (!make_dir(fs::path{path}.parent_path().string(), 0755, report, false))
    return;
  auto result = create_file_atomic(path, content, mode);
  switch (result.outcome) {
    case write_outcome::written: report.created.push_back(path); break;
    case write_outcome::kept: report.kept.push_back(path); break;
    case write_outcome::failed: report.errors.push_back(result.error); break;
  }
}

/// The default config a new user starts from, with empty slots for the
/// usual providers so they see where a key goes.
std::string default_config_text(const std::string& workspace) {
  settings s;
  if (!workspace.empty())
    s.agent.workspace = workspace;
  for (const char* name : {"anthropic", "openai", "openrouter", "custom"})
    s.providers[name];
  // nanobot enables the local WebSocket channel (and its WebUI) by default.
  s.channels["websocket"] = {true, R"({"enabled": true, "host": "127.0.0.1",
    "port": 8765, "streaming": true})"};
  return to_config_json(s).dump(2) + "\n";
}

/// Where the workspace goes: the override, else what the config says.
bool choose_workspace(const std::string& config_path,
                      const std::string& override_path, const env_lookup& env,
                      onboard_report& report) {
  settings s;
  auto loaded = load_settings(config_path, env);
  if (auto* err = std::get_if<config_error>(&loaded)) {
    if (override_path.empty()) {
      report.errors.push_back(config_path
                              + " cannot be used, so the workspace it names "
                                "is unknown: "
                              + err->message());
      return false;
    }
  } else {
    s = std::get<loaded_settings>(loaded).value;
  }
  if (!override_path.empty())
    s.agent.workspace = override_path;
  report.workspace = s.workspace_path();
  return true;
}

void onboard_impl(const std::string& config_path,
                  const std::string& override_path, const env_lookup& env,
                  onboard_report& report) {
  report.config_path = absolute(config_path);
  // A workspace given as a relative path is pinned now: later runs may
  // start from another directory. "~/…" stays portable as written.
  auto recorded = override_path.empty() || override_path[0] == '~'
                    ? override_path
                    : absolute(override_path);
  auto dir = fs::path{report.config_path}.parent_path().string();
  // The config dir holds API keys and session logs: owner only.
  if (!make_dir(dir, 0700, report, false))
    return;
  create(report.config_path, default_config_text(recorded), 0600, report);
  if (!choose_workspace(report.config_path, recorded, env, report))
    return;
  fill_workspace(report.workspace, report);
}

} // namespace

void fill_workspace(const std::string& ws, onboard_report& report) {
  if (!make_dir(ws, 0755, report, true))
    return;
  for (const auto& tpl : workspace_templates()) {
    // Built-in skills stay in the binary: a copy would shadow later updates.
    if (tpl.path.rfind("skills/", 0) == 0)
      continue;
    create(ws + "/" + tpl.path, tpl.content, 0644, report);
  }
  create(ws + "/memory/history.jsonl", "", 0644, report);
  make_dir(ws + "/skills", 0755, report, true);
}

onboard_report onboard(const std::string& config_path,
                       const std::string& workspace_override,
                       const env_lookup& env) {
  onboard_report report;
  try {
    onboard_impl(config_path, workspace_override, env, report);
  } catch (const std::exception& e) {
    report.errors.push_back(std::string{"onboarding failed: "} + e.what());
  } catch (...) {
    report.errors.push_back("onboarding failed");
  }
  return report;
}

} // namespace nb

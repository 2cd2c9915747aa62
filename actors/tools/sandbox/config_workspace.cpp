#include "actors/tools/sandbox/config_workspace.hpp"

#include <filesystem>

#include "actors/tools/workspace_guard.hpp"
#include "config/inplace_save.hpp"

namespace nb {

namespace {

std::string real_or_empty(const std::string& path) {
  auto r = resolve_real_path(path, "/");
  return r.ok() ? r.path : std::string{};
}

} // namespace

const std::vector<std::string>& gateway_state_names() {
  // Where each comes from: settings::config_dir() + "/<name>" in
  // sessions (store), inbox (supervisor), history (cli agent), media and
  // qq, channels, whatsapp-auth (channel adapters), pairing.json (channel
  // manager), plugin-data (agent plugins), cli-apps (CLI apps), run and
  // logs (gateway --background). A new state entry there belongs here.
  static const std::vector<std::string> names{
    ".config-save", "sessions",    "inbox",         "history",
    "media",        "qq",          "channels",      "whatsapp-auth",
    "pairing.json", "plugin-data", "cli-apps",      "run",
    "logs"};
  return names;
}

std::vector<std::string>
config_workspace_hidden(const std::string& dir,
                        const std::string& config_file) {
  std::vector<std::string> out;
  if (auto file = config_file.empty() ? std::string{}
                                      : real_or_empty(config_file);
      !file.empty()) {
    out.push_back(file);
    // A symlinked config.json is saved where it points, its copy there.
    if (auto save_dir = config_save_dir(file);
        save_dir != dir + "/.config-save")
      out.push_back(save_dir);
  }
  for (auto& name : gateway_state_names())
    out.push_back(dir + "/" + name);
  return out;
}

std::vector<std::string> gateway_state_in(const std::string& ws_root,
                                          const std::string& config_dir,
                                          const std::string& config_file) {
  auto dir = config_dir.empty() ? std::string{} : real_or_empty(config_dir);
  if (dir.empty())
    return {};
  if (dir == ws_root)
    return config_workspace_hidden(ws_root, config_file);
  // A listed agent's workspace may hold the config dir: the sandbox masks
  // it whole.
  if (path_within(dir, ws_root))
    return {dir};
  return {};
}

bool within_any(const std::string& path,
                const std::vector<std::string>& hidden) {
  for (auto& h : hidden)
    if (path_within(path, h))
      return true;
  return false;
}

std::string prepare_config_workspace(const std::string& workspace,
                                     const std::string& config_file) {
  if (workspace.empty() || config_file.empty())
    return {};
  auto ws = real_or_empty(workspace);
  auto file = real_or_empty(config_file);
  auto dir = real_or_empty(std::filesystem::path{config_file}.parent_path());
  if (ws.empty() || file.empty() || dir != ws)
    return {};
  if (auto err = save_config_in_place_from_now(file); !err.empty())
    return "config.json is in exec's workspace (" + ws + ") and its saves "
           "cannot be made to keep it hidden from running commands: " + err
           + ". Move this workspace out of the config dir (its workspace "
             "key in agents.list).";
  return "config.json is in exec's workspace (" + ws + "). The sandbox "
         "hides it, and the gateway's own saves (WebUI, nanobot provider) "
         "rewrite it in place so it stays hidden from commands already "
         "running; an editor that saves by renaming (vim, sed -i, most GUI "
         "editors) makes the new file readable to commands running at that "
         "moment. Moving this workspace out of the config dir (its "
         "workspace key in agents.list, e.g. " + ws + "/workspace-<id>) "
         "closes this.";
}

} // namespace nb

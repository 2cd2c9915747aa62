// Sandbox: a home whose workspace is the config dir itself (config.json
// beside the agent's files). The usual layout hides the whole config dir
// from exec; here the workspace must stay visible, so what of the dir is
// the gateway's own is hidden entry by entry, and config.json's saves keep
// its inode so that the mask on it lasts (config/inplace_save.hpp).
#pragma once

#include <string>
#include <vector>

namespace nb {

/// The names below a config dir that are the gateway's state, not the
/// agent's: config.json's save dir, the sessions, the inbox journal (every
/// chat's inbound messages), the CLI's history, channels' media and state
/// (sync tokens, bridge token, group books), pairing approvals, plugin and
/// CLI-app records, the background gateway's state and logs. Files the
/// agent owns in any layout stay (memory/ with its index, cron/, skills/,
/// the bootstrap files).
const std::vector<std::string>& gateway_state_names();

/// What a sandbox whose workspace is the config dir `dir` hides (real
/// paths): the config file `config_file` (its real path) and every gateway
/// state entry below `dir`. Missing entries are left to the mask, which
/// skips them.
std::vector<std::string>
config_workspace_hidden(const std::string& dir, const std::string& config_file);

/// What of the workspace `ws_root` (a real path) the file tools leave
/// alone, as the sandbox hides it: config_workspace_hidden() when `ws_root`
/// is the config dir `config_dir` (of `config_file`), the whole config dir
/// when the workspace holds it, else nothing (the usual layout's config
/// dir lies outside the workspace). Resolves `config_dir` once.
std::vector<std::string> gateway_state_in(const std::string& ws_root,
                                          const std::string& config_dir,
                                          const std::string& config_file);

/// Whether the real path `path` is, or lies below, one of `hidden`.
bool within_any(const std::string& path,
                const std::vector<std::string>& hidden);

/// At the tools' start and before each sandbox: when `workspace` is the
/// config dir of `config_file`, makes config.json's saves keep its inode
/// from now on (for every process that saves it) and returns the warning
/// for the log about what the sandbox cannot hold (an editor that saves by
/// renaming); "" when the layout is the usual one.
std::string prepare_config_workspace(const std::string& workspace,
                                     const std::string& config_file);

} // namespace nb

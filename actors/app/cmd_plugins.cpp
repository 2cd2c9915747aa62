// `nanobot plugins list|enable NAME|disable NAME`: the original's Agent
// Plugins (<workspace>/plugins/*: skills and stdio MCP servers), inert until
// enabled. Enabling records the package's fingerprint under the config
// folder (plugin-data/), exactly where and as the original records it, so
// either program sees the other's choice. (The original's own `plugins`
// command installs its optional Python features, which a native build
// does not have.)
#include <algorithm>
#include <iostream>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/skills/agent_plugins.hpp"

namespace nb {

namespace {

constexpr const char* plugins_usage =
  "Usage:\n"
  "  nanobot plugins list           the Agent Plugins in <workspace>/plugins, "
  "enabled or not\n"
  "  nanobot plugins enable NAME    offer its skills and start its MCP "
  "servers\n"
  "  nanobot plugins disable NAME   make it inert again\n"
  "Options: -c/--config FILE, -w/--workspace DIR, -a/--agent ID (the\n"
  "workspace of that agents.list agent; default: main's).\n";

std::string joined_names(const std::vector<std::string>& xs) {
  std::string out;
  for (auto& x : xs)
    out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "-" : out;
}

int plugins_list(const settings& cfg) {
  auto ws = cfg.workspace_path();
  auto plugins = discover_agent_plugins(ws, cfg.config_dir());
  if (plugins.empty()) {
    std::cout << "No Agent Plugins in " << ws << "/plugins.\n";
    return 0;
  }
  std::cout << "Agent Plugins in " << ws << "/plugins:\n";
  for (auto& p : plugins) {
    std::cout << "  " << p.name << "  " << (p.enabled ? "enabled" : "disabled")
              << "\n";
    if (!p.description.empty())
      std::cout << "    " << p.description << "\n";
    std::cout << "    skills: " << joined_names(p.skills)
              << "\n    MCP servers: " << joined_names(p.mcp_servers) << "\n";
    if (!p.permissions.empty())
      std::cout << "    permissions: " << joined_names(p.permissions) << "\n";
  }
  return 0;
}

int plugins_switch(const settings& cfg, const std::string& name, bool on) {
  auto ws = cfg.workspace_path();
  auto error = set_agent_plugin_enabled(ws, cfg.config_dir(), name, on);
  if (!error.empty()) {
    std::cerr << "nanobot plugins: " << error << "\n";
    return 1;
  }
  if (on)
    std::cout << "Enabled Agent Plugin '" << name
              << "'. Its skills are offered from the next turn; a running "
                 "gateway starts its MCP servers when it restarts.\n";
  else
    std::cout << "Disabled Agent Plugin '" << name
              << "'. A running gateway stops its MCP servers when it "
                 "restarts.\n";
  return 0;
}

} // namespace

int cmd_plugins(const options& opts) {
  const std::vector<std::string> actions{"list", "enable", "disable"};
  const auto& action = opts.subcommand;
  if (action.empty()) {
    std::cout << plugins_usage;
    return 2;
  }
  if (std::find(actions.begin(), actions.end(), action) == actions.end())
    return usage_error("plugins", plugins_usage,
                       unknown_word("action", action, actions));
  size_t want = action == "list" ? 0 : 1;
  if (opts.positionals.size() != want)
    return usage_error("plugins", plugins_usage,
                       want
                         ? action + " needs one plugin NAME"
                         : "unexpected argument '" + opts.positionals[0] + "'");
  if (!opts.agent.empty() && !opts.workspace.empty())
    return usage_error("plugins", plugins_usage,
                       "give --agent or --workspace, not both");
  auto loaded = load_config_or_report(opts);
  if (!loaded)
    return 2;
  auto cfg = *loaded;
  if (!opts.agent.empty()) {
    // The agent's own workspace, as the gateway gives it its plugins.
    auto ids = cfg.agent_ids();
    if (std::find(ids.begin(), ids.end(), opts.agent) == ids.end())
      return usage_error("plugins", plugins_usage,
                         unknown_word("agent", opts.agent, ids)
                           + " (see nanobot agents list)");
    cfg = cfg.for_agent(opts.agent);
  }
  if (action == "list")
    return plugins_list(cfg);
  return plugins_switch(cfg, opts.positionals[0], action == "enable");
}

} // namespace nb

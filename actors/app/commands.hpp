// The nanobot subcommands; each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "actors/app/options.hpp"

namespace nb {

int cmd_onboard(const options& opts);
int cmd_status(const options& opts);
int cmd_agent(const options& opts);
int cmd_gateway(const options& opts);
/// `serve`: the OpenAI-compatible API alone (no channels, cron, heartbeat).
int cmd_serve(const options& opts);
/// `nanobot cron ...`: `args` are the words after "cron".
int cmd_cron(const std::vector<std::string>& args);
/// `nanobot memory ...`: `args` are the words after "memory".
int cmd_memory(const std::vector<std::string>& args);
int cmd_channels(const options& opts);
/// `nanobot node`, run by the nanobot-node executable (node_main.cpp).
int cmd_node(const options& opts);
/// `nanobot node ...` in nanobot: replaces this process with nanobot-node
/// (beside this executable) on the same arguments; returns only when it
/// cannot, after saying why.
int exec_node_executable(int argc, char** argv);
/// Where nanobot-node is: the directory of this process's executable.
std::string node_executable_path();
/// `nanobot agents list`: agents, workspaces, models and bindings.
int cmd_agents(const options& opts);
/// `nanobot trigger JOB`: run a cron job now (through the gateway's
/// scheduler).
int cmd_trigger(const options& opts);
/// `nanobot sessions list|show|restore-workspace`.
int cmd_sessions(const options& opts);
/// `nanobot provider login|logout NAME`: an API-key provider's key.
int cmd_provider(const options& opts);
/// `nanobot plugins list|enable|disable`: the workspace's Agent Plugins.
int cmd_plugins(const options& opts);

} // namespace nb

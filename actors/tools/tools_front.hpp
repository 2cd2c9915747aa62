// Tools: the front actor. Lists the tools and routes each call: bad calls
// are answered at once, MCP calls go to their server, the rest to the
// shared worker pool (which keeps each chat's exclusive calls in order).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/tools/registry.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"
#include "messages/provider_admin.hpp"

namespace nb {

struct tools_state {
  tools_state() = default;
  static inline const char* name = "tools";
  std::shared_ptr<const tool_registry> registry;
  tool_context base;
  stats_actor stats;
  tool_executor_actor pool;
  exec_watch_actor watch; ///< running execs, for /stop
  /// MCP servers by name (detached actors; they connect on first use).
  std::map<std::string, tools_actor> mcp;
  std::map<std::string, mcp_server_settings> mcp_cfg; ///< what each runs
  int32_t tool_workers = 1;
  std::set<std::string> mcp_listed;            ///< servers that answered
  std::map<std::string, tools_actor> mcp_routes; ///< tool name -> server
  std::vector<tool_spec> mcp_specs;
  /// What the model is offered now (tools_catalog.cpp), and the sessions
  /// that hold it (sent each newer one until they end).
  tool_catalog catalog;
  std::set<caf::actor_addr> catalog_holders;
  actor_meter meter;
  /// The exec sandbox's check (tools_sandbox.cpp): started once exec is
  /// offered sandboxed; when bubblewrap cannot run, exec is withdrawn.
  bool sandbox_checked = false;
  bool sandbox_missing = false;
};

using tools_front_pointer = tools_admin_actor::stateful_pointer<tools_state>;

/// The front. `tool_workers` bounds the pool (at least 1). `mcp` names the
/// MCP servers; their tools are listed (and the servers started) on the
/// first list_tools. Its pool and MCP servers stop with it. It takes
/// tools_config (see reload_tools).
tools_admin_actor::behavior_type
tools_impl(tools_front_pointer self,
           std::shared_ptr<const tool_registry> registry, tool_context base,
           int32_t tool_workers, stats_actor stats,
           std::map<std::string, mcp_server_settings> mcp);

/// tools_front.cpp: spawns the MCP server `name` as this front's child.
void start_mcp_server(tools_front_pointer self, const std::string& name,
                      const mcp_server_settings& cfg);

/// tools_reload.cpp: the front's settings from `view` (settings as this
/// front's agent sees them): a new registry and pool for the calls from
/// now on (running calls finish in the old pool, which ends once idle),
/// MCP servers started, stopped or restarted where their entry changed.
/// The browser and the exec watch stay as they are.
void reload_tools(tools_front_pointer self, const settings& view);

// -- the exec sandbox's check (tools_sandbox.cpp) ----------------------------

/// Checks, once, on a thread of its own, that bubblewrap runs here when the
/// registry offers exec sandboxed; when it does not, logs why and how to
/// fix it and withdraws exec and its session tools. The gateway is ready
/// before this ends (it runs `bwrap ... true`, ~12 ms): a call that comes
/// first is refused by exec itself with the same explanation.
void check_exec_sandbox(tools_front_pointer self);

/// Removes exec and its session tools from `reg` when the sandbox was
/// found missing and exec must run in it (a reload keeps them withdrawn).
void withhold_unsandboxable_exec(const tools_state& st, tool_registry& reg);

// -- the catalog (tools_catalog.cpp) ----------------------------------------

/// Makes the next catalog from the registry and the MCP tools listed so
/// far, and sends it to every holder.
void refresh_catalog(tools_front_pointer self);

/// Notes the current sender as a holder of the catalog (until it ends).
void hold_catalog(tools_front_pointer self);

/// A holder ended.
void forget_holder(tools_front_pointer self, const caf::down_msg& down);

/// Asks the MCP servers that have not listed their tools yet (each waited
/// for a bounded time; one that fails is asked again next time), then
/// runs `then`.
void list_unlisted_mcp(tools_front_pointer self, std::function<void()> then);

/// Spawns the front with the built-in tools configured by `cfg`.
tools_actor spawn_tools(caf::actor_system& sys, const settings& cfg,
                        stats_actor stats);

/// Spawns the front with `registry` (built-ins plus, e.g., MCP tools).
tools_actor spawn_tools(caf::actor_system& sys, const settings& cfg,
                        stats_actor stats, tool_registry registry);

} // namespace nb

// The tools front takes new settings while the gateway runs (the WebUI's
// tools and MCP pages): the calls from now on see the new built-in tools and
// MCP servers; nothing that is running is cut short.
#include <algorithm>

#include "actors/tools/mcp_server.hpp"
#include "actors/tools/stop_with.hpp"
#include "actors/tools/tool_pool.hpp"
#include "actors/tools/tools_front.hpp"

namespace nb {

namespace {

/// Forgets the tools `server` offered; they are listed again once a
/// successor answers.
void forget_mcp_tools(tools_state& st, const tools_actor& server) {
  std::vector<std::string> gone;
  for (auto it = st.mcp_routes.begin(); it != st.mcp_routes.end();) {
    if (it->second == server) {
      gone.push_back(it->first);
      it = st.mcp_routes.erase(it);
    } else {
      ++it;
    }
  }
  st.mcp_specs.erase(std::remove_if(st.mcp_specs.begin(), st.mcp_specs.end(),
                                    [&](const tool_spec& t) {
                                      return std::find(gone.begin(), gone.end(),
                                                       t.name)
                                             != gone.end();
                                    }),
                     st.mcp_specs.end());
}

/// A running server is kept across a reload only when its entry is the
/// same in every field.
bool same_mcp_entry(const mcp_server_settings& a,
                    const mcp_server_settings& b) {
  return a.type == b.type && a.command == b.command && a.args == b.args
         && a.env == b.env && a.cwd == b.cwd && a.url == b.url
         && a.headers == b.headers && a.tool_timeout_s == b.tool_timeout_s
         && a.enabled_tools == b.enabled_tools;
}

} // namespace

void reload_tools(tools_front_pointer self, const settings& view) {
  auto& st = self->state;
  auto fresh = make_tool_context(view);
  // What the front made for itself stays: the exec watch (/stop reaches
  // running execs), the browsers (their Chromium and tabs), the resolver.
  fresh.system = st.base.system;
  fresh.watch = st.base.watch;
  fresh.browser = st.base.browser;
  fresh.browsers = st.base.browsers;
  fresh.resolve = st.base.resolve;
  fresh.agent = st.base.agent;
  fresh.bwrap = st.base.bwrap;
  fresh.warm_sandboxes = st.base.warm_sandboxes;
  // The workspace is the agent's (agents.list), which changes with a
  // restart only: its sessions keep the one they started with.
  fresh.workspace = st.base.workspace;
  st.base = std::move(fresh);
  auto registry = make_builtin_registry(view);
  withhold_unsandboxable_exec(st, registry);
  st.registry = std::make_shared<const tool_registry>(std::move(registry));
  // A new pool for new calls. The old one answers the calls it has and,
  // once nobody holds it, ends; the front's end still stops it.
  st.pool = self->spawn(tool_pool_impl, st.registry, st.base, st.tool_workers,
                        st.stats);
  stop_with(self, st.pool);
  const auto& wanted = view.tools.mcp_servers;
  for (auto it = st.mcp.begin(); it != st.mcp.end();) {
    const auto& name = it->first;
    auto want = wanted.find(name);
    if (want != wanted.end()
        && same_mcp_entry(want->second, st.mcp_cfg[name])) {
      ++it;
      continue;
    }
    // Removed or changed: this server stops (its calls in flight end with
    // an error) and a changed one starts again below.
    forget_mcp_tools(st, it->second);
    self->send_exit(it->second, caf::exit_reason::user_shutdown);
    st.mcp_listed.erase(name);
    st.mcp_cfg.erase(name);
    it = st.mcp.erase(it);
  }
  for (const auto& [name, cfg] : wanted)
    if (!st.mcp.count(name))
      start_mcp_server(self, name, cfg); // listed at the next list_tools
  // The sessions holding the catalog drop it for this one at their next
  // turn (which, while a new MCP server has not listed, asks again).
  refresh_catalog(self);
  check_exec_sandbox(self); // exec newly offered: checked once
}

} // namespace nb

#include "actors/tools/tools_front.hpp"

#include "actors/browser/browser.hpp"
#include "actors/tools/mcp_server.hpp"
#include "actors/tools/sandbox/warm_sandbox_pool.hpp"
#include "actors/tools/side_files.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/stop_with.hpp"
#include "actors/tools/tool_pool.hpp"
#include "actors/tools/tool_worker.hpp"
#include "config/load.hpp"

namespace nb {

namespace {

using front_ptr = tools_front_pointer;

tool_result refused(const tool_request& req, std::string text) {
  tool_result r;
  r.call_id = req.call.id;
  r.name = req.call.name;
  r.content = sanitize_utf8(text) + tool_error_hint;
  r.is_error = true;
  r.started_us = r.finished_us = steady_now_us();
  return r;
}

/// Answers with `answer(catalog)` once the MCP servers that have not
/// listed their tools yet were asked (at once when there are none).
template <class T, class Make>
caf::result<T> after_listing(front_ptr self, Make answer) {
  if (self->state.catalog.complete)
    return answer(self->state.catalog);
  auto promise = self->make_response_promise<T>();
  list_unlisted_mcp(self, [self, promise, answer]() mutable {
    promise.deliver(answer(self->state.catalog));
  });
  return promise;
}

tools_admin_actor::behavior_type
tools_body(front_ptr self, std::shared_ptr<const tool_registry> registry,
           tool_context base, int32_t tool_workers, stats_actor stats) {
  auto& st = self->state;
  st.registry = std::move(registry);
  st.base = std::move(base);
  st.stats = stats;
  // Workers copy the base context: the watch must be in it before any
  // worker exists.
  st.watch = self->spawn(exec_watch_impl, exec_session_limits_of(st.base.exec));
  stop_with(self, st.watch);
  st.base.system = &self->system();
  st.base.watch = st.watch;
  // Empty (no thread, no process) until a sandboxed exec ran; closed when
  // the front ends, so a normal stop leaves no sandbox waiting. (A test
  // may bring its own, to read its counters.)
  if (!st.base.warm_sandboxes)
    st.base.warm_sandboxes = std::make_shared<warm_sandbox_pool>();
  self->attach_functor(
    [pool = st.base.warm_sandboxes] { pool->close(); });
  if (st.registry->find("browser")) {
    // Cheap until used: the front spawns a browser actor (and Chromium)
    // on the first browser call of each agent.
    st.base.browsers = self->spawn(browsers_impl, st.base.browser,
                                   st.base.ssrf_whitelist, st.watch, stats);
    stop_with(self, st.base.browsers);
  }
  st.pool = self->spawn(tool_pool_impl, st.registry, st.base, tool_workers,
                        stats);
  stop_with(self, st.pool);
  st.meter.start(self, "tools", std::move(stats));
  refresh_catalog(self);
  check_exec_sandbox(self);
  self->set_down_handler(
    [self](caf::down_msg& down) { forget_holder(self, down); });
  return {
    [self](list_tools_atom) -> caf::result<std::vector<tool_spec>> {
      auto t = self->state.meter.measure();
      return after_listing<std::vector<tool_spec>>(
        self, [](const tool_catalog& c) { return *c.specs; });
    },
    [self](tool_catalog_atom) -> caf::result<tool_catalog> {
      auto t = self->state.meter.measure();
      hold_catalog(self);
      return after_listing<tool_catalog>(
        self, [](const tool_catalog& c) { return c; });
    },
    [self](tool_request& req) -> caf::result<tool_result> {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      if (!tool_permitted(req.call.name, st.base.allow_tools,
                          st.base.deny_tools)) {
        auto r = refused(req, "Error: Tool '" + req.call.name
                                + "' is not available to this agent");
        report_tool_sample(st.stats, r, st.base.agent);
        return r;
      }
      if (auto route = st.mcp_routes.find(req.call.name);
          route != st.mcp_routes.end())
        return self->delegate(route->second, std::move(req));
      prepared_call prep;
      try {
        prep = st.registry->prepare_call(req.call.name,
                                         req.call.arguments_json);
      } catch (const std::exception& e) {
        prep.error = std::string{"Error: Invalid parameters for tool '"}
                     + req.call.name + "': " + e.what();
      }
      if (!prep.ok()) {
        // Nothing to run: answered here, without a worker.
        auto r = refused(req, prep.error);
        report_tool_sample(st.stats, r, st.base.agent);
        return r;
      }
      // The pool runs each chat's exclusive calls in order, one at a time.
      return self->delegate(st.pool, std::move(req));
    },
    [self](tools_config& tc) -> caf::result<caf::ok_atom> {
      auto t = self->state.meter.measure();
      auto parsed = parse_settings(tc.config_json, tc.config_path);
      if (auto* e = std::get_if<config_error>(&parsed))
        return caf::make_error(caf::sec::runtime_error, e->message());
      auto& all = std::get<loaded_settings>(parsed).value;
      apply_tool_side_files(tc, all);
      const auto& agent = self->state.base.agent;
      // An agent the saved file no longer lists keeps its tools until the
      // restart that removes it: never main's settings (and workspace).
      if (agent == main_agent || all.find_agent(agent))
        reload_tools(self, all.for_agent(agent));
      return caf::ok_atom::value;
    },
    [self](cancel_tools& c) {
      auto t = self->state.meter.measure();
      // Running execs are killed; MCP calls are left to finish on their
      // own (the runner no longer waits for them) and their late answers
      // go nowhere.
      self->send(self->state.watch, std::move(c));
    },
    [self](exec_stop_atom a, std::string& key) -> caf::result<int32_t> {
      auto t = self->state.meter.measure();
      return self->delegate(self->state.watch, a, std::move(key));
    },
  };
}

} // namespace

void start_mcp_server(front_ptr self, const std::string& name,
                      const mcp_server_settings& cfg) {
  auto& st = self->state;
  auto server =
    self->spawn<caf::detached>(mcp_server_impl, name, cfg,
                               st.base.ssrf_whitelist, st.stats, st.base.agent);
  stop_with(self, server);
  st.mcp[name] = server;
  st.mcp_cfg[name] = cfg;
}

tools_admin_actor::behavior_type
tools_impl(front_ptr self, std::shared_ptr<const tool_registry> registry,
           tool_context base, int32_t tool_workers, stats_actor stats,
           std::map<std::string, mcp_server_settings> mcp) {
  self->state.base.ssrf_whitelist = base.ssrf_whitelist;
  self->state.base.agent = base.agent;
  self->state.stats = stats;
  self->state.tool_workers = tool_workers;
  for (auto& [name, cfg] : mcp)
    start_mcp_server(self, name, cfg);
  return tools_body(self, std::move(registry), std::move(base), tool_workers,
                    std::move(stats));
}

tools_actor spawn_tools(caf::actor_system& sys, const settings& cfg,
                        stats_actor stats) {
  return spawn_tools(sys, cfg, std::move(stats), make_builtin_registry(cfg));
}

tools_actor spawn_tools(caf::actor_system& sys, const settings& cfg,
                        stats_actor stats, tool_registry registry) {
  return caf::actor_cast<tools_actor>(sys.spawn(
    tools_impl, std::make_shared<const tool_registry>(std::move(registry)),
    make_tool_context(cfg), cfg.gateway.tool_workers, std::move(stats),
    cfg.tools.mcp_servers));
}

} // namespace nb

#include "actors/browser/browser.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/tools/exec_cancel.hpp"
#include "actors/tools/stop_with.hpp"
#include "actors/tools/tool_worker.hpp"

namespace nb {

using json = nlohmann::json;

std::string browser_envelope(const std::string& workspace,
                             const std::string& args_json) {
  auto args = json::parse(args_json, nullptr, false);
  return json{{"workspace", workspace},
              {"args", args.is_discarded() ? json::object() : args}}
    .dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

using browser_ptr = browser_actor::stateful_pointer<browser_state>;

void report(browser_ptr self, const std::string& action,
            const tool_result& r) {
  auto& st = self->state;
  if (!st.stats)
    return;
  // Actions by name ("browser.click") next to the tools; the levels as
  // gauges.
  self->send(st.stats, tool_sample{"browser." + action, r.is_error,
                                   r.finished_us - r.started_us});
  self->send(st.stats, gauge_sample{"browser_pages_open",
                                    st.engine->pages_open()});
  self->send(st.stats, gauge_sample{"browser_chromium_rss_bytes",
                                    st.engine->rss_bytes()});
  self->send(st.stats, gauge_sample{"browser_requests_blocked",
                                    st.engine->blocked_requests()});
}

void arm_idle(browser_ptr self) {
  auto& st = self->state;
  if (st.tick_pending)
    return;
  st.tick_pending = true;
  self->delayed_send(self, st.idle, caf::tick_atom_v);
}

tool_result run_call(browser_ptr self, const tool_request& req) {
  auto& st = self->state;
  tool_result r;
  r.call_id = req.call.id;
  r.name = req.call.name;
  r.started_us = steady_now_us();
  auto env = json::parse(req.call.arguments_json, nullptr, false);
  json args = env.is_object() && env.contains("args") ? env["args"]
                                                      : json::object();
  // /stop reaches the action through the exec watch, like a running exec.
  tool_context ctx;
  ctx.system = &self->system();
  ctx.watch = st.watch;
  ctx.session_key = req.session_key;
  ctx.call_id = req.call.id;
  exec_cancel cancel{ctx};
  browser_outcome out;
  if (cancel.refused())
    out = {"Error: the browser action was stopped (/stop) before it began.",
           true};
  else
    out = st.engine->run(req.session_key, args,
                         [&cancel] { return cancel.requested(); });
  r.content = std::move(out.text);
  r.is_error = out.is_error;
  r.finished_us = steady_now_us();
  report(self, args.value("action", std::string{"?"}), r);
  return r;
}

} // namespace

browser_actor::behavior_type
browser_impl(browser_ptr self, browser_settings cfg,
             std::vector<std::string> ssrf_whitelist, std::string workspace,
             exec_watch_actor watch, stats_actor stats) {
  auto& st = self->state;
  st.idle = std::chrono::milliseconds(
    static_cast<int64_t>(cfg.idle_minutes * 60000.0));
  if (st.idle.count() < 1)
    st.idle = std::chrono::milliseconds(1);
  st.engine = std::make_unique<browser_engine>(
    std::move(cfg), make_ssrf_policy(ssrf_whitelist), std::move(workspace));
  st.watch = std::move(watch);
  st.stats = stats;
  st.meter.start(self, "browser", std::move(stats));
  // The engine's destructor kills the process group, so Chromium goes
  // with the actor's state however the actor ends.
  return {
    [self](tool_request& req) -> tool_result {
      auto t = self->state.meter.measure();
      tool_result r;
      try {
        r = run_call(self, req);
      } catch (const std::exception& e) {
        self->state.meter.failed();
        r.call_id = req.call.id;
        r.name = req.call.name;
        r.content = std::string{"Error: browser failure: "} + e.what();
        r.is_error = true;
      }
      self->state.last_use = std::chrono::steady_clock::now();
      arm_idle(self);
      return r;
    },
    [self](caf::tick_atom) {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      st.tick_pending = false;
      auto quiet = std::chrono::steady_clock::now() - st.last_use;
      if (quiet < st.idle) {
        st.tick_pending = true;
        self->delayed_send(self,
                           std::chrono::duration_cast<
                             std::chrono::milliseconds>(st.idle - quiet)
                             + std::chrono::milliseconds(1),
                           caf::tick_atom_v);
        return;
      }
      if (!st.engine->running())
        return;
      st.engine->stop();
      if (st.stats) {
        self->send(st.stats, gauge_sample{"browser_pages_open", 0});
        self->send(st.stats, gauge_sample{"browser_chromium_rss_bytes", 0});
      }
    },
  };
}

tool_executor_actor::behavior_type
browsers_impl(tool_executor_actor::stateful_pointer<browsers_state> self,
              browser_settings cfg, std::vector<std::string> ssrf_whitelist,
              exec_watch_actor watch, stats_actor stats) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.ssrf_whitelist = std::move(ssrf_whitelist);
  st.watch = std::move(watch);
  st.stats = std::move(stats);
  return {
    [self](tool_request& req) -> caf::result<tool_result> {
      auto& st = self->state;
      std::string workspace;
      auto env = json::parse(req.call.arguments_json, nullptr, false);
      if (env.is_object())
        workspace = env.value("workspace", std::string{});
      auto& b = st.by_workspace[workspace];
      if (!b) {
        // One Chromium per agent: the first call for a workspace starts
        // its browser actor (and the actor starts Chromium).
        b = self->spawn<caf::detached>(browser_impl, st.cfg,
                                       st.ssrf_whitelist, workspace, st.watch,
                                       st.stats);
        stop_with(self, b);
      }
      return self->delegate(b, std::move(req));
    },
  };
}

} // namespace nb

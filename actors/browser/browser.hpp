// Browser: the actor that owns one agent's Chromium. Detached (its own
// thread: it spawns the process and waits on the DevTools pipe); runs the
// browser tool's calls one at a time; stops Chromium after
// tools.browser.idleMinutes without a call, and kills its process group
// when the actor quits.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/browser/engine.hpp"
#include "actors/common/meter.hpp"
#include "actors/tools/exec_watch.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// A browser call travels as a tool_request whose arguments are this
/// envelope: {"workspace": "...", "args": {validated tool arguments}}.
std::string browser_envelope(const std::string& workspace,
                             const std::string& args_json);

/// One agent's browser: tool calls in; `tick_atom` is its idle timer.
using browser_actor
  = tool_executor_actor::extend<caf::reacts_to<caf::tick_atom>>;

struct browser_state {
  browser_state() = default;
  static inline const char* name = "browser";
  std::unique_ptr<browser_engine> engine;
  exec_watch_actor watch;
  stats_actor stats;
  std::chrono::milliseconds idle{600000};
  std::chrono::steady_clock::time_point last_use;
  bool tick_pending = false;
  actor_meter meter;
};

/// Spawn it with caf::detached. `workspace` is the agent's (downloads and
/// screenshots go below it); `watch` lets /stop reach a running action.
browser_actor::behavior_type
browser_impl(browser_actor::stateful_pointer<browser_state> self,
             browser_settings cfg, std::vector<std::string> ssrf_whitelist,
             std::string workspace, exec_watch_actor watch, stats_actor stats);

struct browsers_state {
  browsers_state() = default;
  static inline const char* name = "browsers";
  browser_settings cfg;
  std::vector<std::string> ssrf_whitelist;
  exec_watch_actor watch;
  stats_actor stats;
  std::map<std::string, browser_actor> by_workspace; ///< spawned on first use
};

/// The front: one browser actor per agent workspace, spawned on the first
/// call for it (nothing runs before). Runs on the scheduler; never blocks.
tool_executor_actor::behavior_type
browsers_impl(tool_executor_actor::stateful_pointer<browsers_state> self,
              browser_settings cfg, std::vector<std::string> ssrf_whitelist,
              exec_watch_actor watch, stats_actor stats);

} // namespace nb

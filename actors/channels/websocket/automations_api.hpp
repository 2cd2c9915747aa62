// The WebUI's automations (issue 20, part 4) behind /api/automations,
// /api/cron/... and /api/heartbeat: the agent's cron jobs listed, added,
// edited, paused, resumed, removed and run now by the cron actor that owns
// cron/jobs.json; HEARTBEAT.md read and edited through the workspace actor,
// with the heartbeat's interval and the evaluator prompt in effect.
// Blocking: runs on the WebSocket server's worker thread.
#pragma once

#include <optional>

#include <caf/fwd.hpp>

#include "actors/channels/websocket/control_ask.hpp"
#include "actors/channels/websocket/ws_server.hpp"

namespace nb::ws {

/// Answers these routes, or nullopt when `call` is none of them:
///   GET    automations          {agent, agents, jobs, problems, cron_error?,
///                                heartbeat:
///                                {enabled, interval_s, active_tasks, file:
///                                {text, version, origin}, evaluator:
///                                {text, origin}}}
///   POST   cron/jobs            add: {name, message, kind, every_seconds,
///                                cron_expr, tz, at, channel, chat_id}
///   PUT    cron/jobs/<id>       update (the same fields, each optional)
///   POST   cron/jobs/<id>/pause | resume | run
///   DELETE cron/jobs/<id>
///   PUT    heartbeat            {text, version}: HEARTBEAT.md replaced when
///                                it still has `version`
/// Job changes answer {ok, job} or 400 {error}. Every route serves the
/// agent of its ?agent= ("main" when absent; an unknown one: 404 naming it):
/// that agent's cron/jobs.json and HEARTBEAT.md, in its own workspace.
std::optional<api_reply> automations_api(caf::actor_system& sys,
                                         const control_agents& agents,
                                         const api_call& call);

} // namespace nb::ws

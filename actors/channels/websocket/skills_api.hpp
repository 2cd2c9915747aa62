// The WebUI's skills and memory (issue 20, part 5) behind /api/skills and
// /api/memory: the skills with what each lacks, a SKILL.md, MEMORY.md read
// and edited, and pages of history.jsonl, all from the agent's workspace
// actor (the one writer of its memory files besides consolidation, which
// shares their lock). Blocking: runs on the WebSocket server's worker
// thread.
#pragma once

#include <optional>

#include <caf/fwd.hpp>

#include "actors/channels/websocket/control_ask.hpp"
#include "actors/channels/websocket/ws_server.hpp"

namespace nb::ws {

/// Answers these routes, or nullopt when `call` is none of them:
///   GET skills                  {agent, agents, skills: [{name, description,
///                                source, path,
///                                always, available, missing, missing_bins,
///                                missing_env}]}
///   GET skills/<name>           {file, text}: its SKILL.md
///   GET memory                  {text, version, origin}: MEMORY.md
///   PUT memory                  {text, version}: replaced when it still has
///                                `version` -> the new {text, version}
///   GET memory/history[/<before>]  {entries, total, skipped, more}: newest
///                                first, cursors below <before>
/// Every route serves the agent of its ?agent= ("main" when absent; an
/// unknown one: 404 naming it): the files of that agent's workspace.
std::optional<api_reply> skills_api(caf::actor_system& sys,
                                    const control_agents& agents,
                                    const api_call& call);

} // namespace nb::ws

// The workspace actor: one per agent, spawned detached so that every read
// and write of the agent's workspace files happens on its own thread, never
// on the scheduler's. It keeps what the system prompt takes from the files
// (bootstrap files, MEMORY.md, skills, history.jsonl) and rebuilds it once
// when a file changed, however many sessions ask; each session's prompt is
// then assembled from that cache without touching the disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/session/prompt.hpp"
#include "actors/workspace/system_message_pool.hpp"
#include "messages/control.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct workspace_config {
  std::string agent = "main";
  std::string workspace; ///< absolute
  skill_selection skills{}; ///< agents.list[].skills, disabledSkills
};

struct workspace_state {
  workspace_state() = default;
  static inline const char* name = "workspace";
  workspace_config cfg;
  std::string path_env; ///< PATH, for the skills' requirements
  std::string stamp;    ///< of the files the parts were read from
  std::string plugin_state; ///< plugin_state_dir, worked out at the start
  bool loaded = false;
  workspace_parts parts;
  /// The sessions' made system messages, one per distinct prompt.
  system_message_pool system_messages;
  workspace_figures figures;
  stats_actor stats;
  actor_meter meter;
};

using workspace_pointer
  = workspace_admin_actor::stateful_pointer<workspace_state>;

/// Besides the sessions' messages, it answers the WebUI's (see
/// messages/control.hpp): the page edits HEARTBEAT.md and MEMORY.md through
/// it, never beside it.
workspace_admin_actor::behavior_type workspace_impl(workspace_pointer self,
                                                    workspace_config cfg,
                                                    stats_actor stats);

/// Spawns the actor detached (its own thread: it does blocking file I/O).
workspace_admin_actor spawn_workspace(caf::actor_system& sys, workspace_config cfg,
                                stats_actor stats);

} // namespace nb

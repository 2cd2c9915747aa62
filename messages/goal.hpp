// Sustained goals (the original's /goal, create_goal and update_goal): the
// session owns the goal state in its file's metadata, so the runner hands
// these two tools' calls to its session instead of the tools front.
#pragma once

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>

#include "messages/chat.hpp"
#include "messages/model.hpp"
#include "messages/session_admin.hpp"
#include "messages/tool.hpp"

namespace nb {

/// A create_goal or update_goal call of the running turn; the session
/// answers with the call's tool_result once the new state is on disk.
/// Not in the type-ID block: it never leaves the process (a runner is
/// spawned by its session, on the same node).
struct goal_tool_call {
  tool_call call;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, goal_tool_call& x) {
  return f(caf::meta::type_name("goal_tool_call"), x.call);
}

/// The running turn's model gave a final answer (no tool calls): the
/// session answers with the user message that continues its goal while
/// one is active, as the goal is now (one the turn created or ended
/// counts), or "" when none is. Local only, as goal_tool_call.
struct goal_continue_query {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, goal_continue_query&) {
  return f(caf::meta::type_name("goal_continue_query"));
}

/// A goal event for the WebUI (goal_state, goal_status): a progress
/// message without text whose metadata carries the original's flag
/// "_goal_state_sync" or "_goal_status". Only the WebSocket channel shows
/// them; every other channel is spared them by the channel manager.
inline bool is_goal_event(const outbound_msg& m) {
  return m.kind == outbound_kind::progress
         && (m.metadata_json.find("\"_goal_state_sync\":true")
               != std::string::npos
             || m.metadata_json.find("\"_goal_status\":true")
                  != std::string::npos);
}

/// What a session actor answers in all: the narrow session_actor, the
/// WebUI's admin changes, its runner's goal calls and questions and its
/// tools front's newer catalogs.
using session_goal_view = session_admin_view::extend<
  caf::replies_to<goal_tool_call>::with<tool_result>,
  caf::replies_to<goal_continue_query>::with<std::string>,
  caf::reacts_to<tool_catalog>>;

} // namespace nb

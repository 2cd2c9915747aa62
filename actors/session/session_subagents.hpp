// A session's view of its subagents (session_subagents.cpp). Internal to
// nb_session.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "actors/session/commands.hpp"
#include "actors/session/session.hpp"

namespace nb {

/// Calls `then` with the number of this session's running subagents (0
/// without a manager, or when it does not answer).
void with_subagent_count(session_pointer self,
                         std::function<void(int32_t)> then);

/// Ends this session's background exec sessions (/stop, /new).
void stop_exec_sessions(session_pointer self);

/// Stops this session's subagents and its background exec sessions;
/// `then` (may be empty) gets how many of both ended.
void stop_subagents(session_pointer self, std::function<void(int32_t)> then);

/// "Stopped n task(s)." or, for 0, "No active task to stop."
std::string stopped_text(int32_t n);

/// Whether `cmd`'s answer depends on the running subagents (/status, /stop).
bool counts_subagents(const parsed_command& cmd);

} // namespace nb

// Tools: exec background sessions as the model sees them: exec with
// yield_time_ms (exec.cpp calls start_exec_session), write_stdin and
// list_exec_sessions. Each call asks the session manager through the exec
// watch and waits on its worker thread for the answer.
#pragma once

#include <cstdint>

#include "actors/tools/registry.hpp"
#include "messages/exec_session.hpp"

namespace nb {

/// The most a call may wait for output (yield_time_ms).
inline constexpr int64_t exec_max_yield_ms = 30000;

/// Starts the checked command `launch` as a background session of
/// ctx.session_key and returns what it wrote within `yield_ms` (clamped to
/// 0..30000), with its session_id while it runs.
tool_output start_exec_session(exec_launch launch, int64_t yield_ms,
                               int64_t max_output, const tool_context& ctx);

} // namespace nb

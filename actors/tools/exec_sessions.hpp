// Tools: the exec session manager. Owns every background session of one
// agent's tools (exec with yield_time_ms): the processes, their buffered
// output, their stdin, their time limits. Spawned detached by the exec
// watch on the first background exec (nothing runs before), because it
// starts processes (the sandbox waits on bwrap) and reaps them; a tick
// reads their pipes without blocking and answers the calls waiting on
// them. Sessions belong to the session key that started them; when the
// manager stops (gateway shutdown), every process it owns is killed.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/tools/exec_session_output.hpp"
#include "actors/tools/exec_session_process.hpp"
#include "config/settings.hpp"
#include "messages/exec_session.hpp"

namespace nb {

/// The manager as spawned: the public interface plus its own tick.
using exec_sessions_full_actor =
  exec_sessions_actor::extend<caf::reacts_to<caf::tick_atom>>;

/// Limits of one manager: tools.exec.maxSessions, sessionIdleTimeout and
/// sessionBufferChars (the original's defaults, constants there).
struct exec_session_limits {
  size_t max_sessions = 8;
  std::chrono::milliseconds idle{std::chrono::seconds(1800)};
  size_t buffer_bytes = 50000; ///< output kept per stream between polls
};

/// The limits `exec` (tools.exec) sets.
exec_session_limits exec_session_limits_of(const exec_settings& exec);

/// A call waiting on a session (one at a time per session).
struct exec_session_waiter {
  caf::typed_response_promise<exec_session_poll> promise;
  std::chrono::steady_clock::time_point until;
  std::string wait_for;   ///< "" = until `until` or the exit
  std::string overlap[2]; ///< per stream: the end of the text searched
  bool seen = false;
  bool yielded = false; ///< asked to wait (gets a short output grace)
  bool grace_used = false;
  bool terminated = false;
  bool stdin_closed = false;
  size_t max_output = 10000;
};

/// One background command.
struct exec_session_entry {
  std::string id;
  std::string owner; ///< the session key that started it
  std::string command;
  std::string cwd;
  std::unique_ptr<session_process> proc;
  bounded_output out{50000};
  bounded_output err{50000};
  std::chrono::steady_clock::time_point started;
  std::chrono::steady_clock::time_point last_access;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::chrono::steady_clock::time_point exited_at;
  bool exited = false;
  bool timed_out = false;
  std::optional<exec_session_waiter> waiter;
};

struct exec_sessions_state {
  exec_sessions_state() = default;
  static inline const char* name = "exec_sessions";
  std::map<std::string, exec_session_entry> sessions; ///< by id
  exec_session_limits limits;
  bool tick_pending = false;
  std::mt19937_64 rng{std::random_device{}()};
};

/// The manager; spawn it with caf::detached.
exec_sessions_full_actor::behavior_type exec_sessions_impl(
  exec_sessions_full_actor::stateful_pointer<exec_sessions_state> self,
  exec_session_limits limits);

} // namespace nb

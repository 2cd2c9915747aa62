// Tools: the exec watch. Every running exec registers here with a small
// mailbox of its own; /stop (cancel_tools) reaches the running commands of
// a session through it, and a command cancelled before it started is
// refused when it registers. It also fronts the background sessions (exec
// with yield_time_ms): the first one spawns the session manager
// (exec_sessions.hpp), and a session-wide cancel_tools ends that session
// key's background commands too.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "messages/atoms.hpp"
#include "actors/tools/exec_sessions.hpp"
#include "messages/exec_session.hpp"
#include "messages/tool.hpp"

namespace nb {

/// The mailbox of one running exec: `cancel_turn_atom` asks it to kill its
/// process group. The exec's own thread reads it between output reads, so
/// the kill and the reaping of the child happen on one thread.
using exec_canceller = caf::typed_actor<caf::reacts_to<cancel_turn_atom>>;

/// An exec about to start. Answered `true` when its call was already
/// cancelled (it must not run).
struct watch_exec {
  std::string session_key;
  std::string call_id;
  exec_canceller canceller;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_exec& x) {
  return f(caf::meta::type_name("watch_exec"), x.session_key, x.call_id,
           x.canceller);
}

using exec_watch_actor = caf::typed_actor<
  caf::replies_to<watch_exec>::with<bool>, caf::reacts_to<cancel_tools>,
  caf::replies_to<exec_session_start>::with<exec_session_poll>,
  caf::replies_to<exec_session_write>::with<exec_session_poll>,
  caf::replies_to<exec_session_list>::with<std::vector<exec_session_info>>,
  caf::replies_to<exec_stop_atom, std::string>::with<int32_t>>;

struct exec_watch_state {
  exec_watch_state() = default;
  static inline const char* name = "exec_watch";

  struct running {
    std::string session_key;
    std::string call_id;
    exec_canceller canceller;
  };
  /// Running execs by the address of their canceller (monitored).
  std::map<caf::actor_addr, running> live;
  /// Calls cancelled before they registered ("key\ncall"), oldest first;
  /// forgotten after a while (a cancelled call that never runs).
  std::deque<std::pair<std::string, std::chrono::steady_clock::time_point>>
    early;
  /// The background session manager; null until the first one starts.
  exec_sessions_actor sessions;
  exec_session_limits limits; ///< the manager's, once spawned
};

/// The watch; runs on the scheduler (it never blocks). `limits` are the
/// background sessions' (exec_session_limits_of the tools.exec settings).
exec_watch_actor::behavior_type
exec_watch_impl(exec_watch_actor::stateful_pointer<exec_watch_state> self,
                exec_session_limits limits);

} // namespace nb

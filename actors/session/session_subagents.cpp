// A session's view of its subagents: how many run (for /status and /stop)
// and stopping them (/stop, /new), with the chat's background exec
// sessions (which /stop counts as stopped tasks too). The subagent manager owns
// them; a session without one has none.
#include "actors/session/session.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/session_subagents.hpp"

namespace nb {

namespace {

// The manager is a local actor that answers at once; a stuck one must not
// hold a command's answer for long.
constexpr auto manager_timeout = std::chrono::seconds(5);

} // namespace

void with_subagent_count(session_pointer self,
                         std::function<void(int32_t)> then) {
  auto& st = self->state;
  if (!st.svc.subagents) {
    then(0);
    return;
  }
  timed_request(self, st.svc.subagents, manager_timeout,
                subagent_count_atom::value,
                st.key)
    .then([then](int32_t n) { then(n); },
          [then](caf::error&) { then(0); });
}

void stop_exec_sessions(session_pointer self) {
  auto& st = self->state;
  // A session-wide cancel: the tools end this chat's background exec
  // sessions (exec with yield_time_ms).
  if (st.svc.tools)
    self->send(st.svc.tools, cancel_tools{st.key, {}});
}

void stop_subagents(session_pointer self, std::function<void(int32_t)> then) {
  auto& st = self->state;
  if (!then) {
    stop_exec_sessions(self);
    if (st.svc.subagents)
      timed_request(self, st.svc.subagents, manager_timeout,
                    subagent_stop_atom::value, st.key)
        .then([](int32_t) {}, [](caf::error&) {});
    return;
  }
  // /stop counts what it ended, as the original does: the subagents and
  // the background exec sessions.
  auto with_subagents = [self, then](int32_t sessions) {
    auto& st = self->state;
    if (!st.svc.subagents) {
      then(sessions);
      return;
    }
    timed_request(self, st.svc.subagents, manager_timeout,
                  subagent_stop_atom::value, st.key)
      .then([then, sessions](int32_t n) { then(sessions + n); },
            [then, sessions](caf::error&) { then(sessions); });
  };
  if (!st.svc.tools) {
    with_subagents(0);
    return;
  }
  timed_request(self, st.svc.tools, manager_timeout, exec_stop_atom::value,
                st.key)
    .then([with_subagents](int32_t n) { with_subagents(n); },
          [with_subagents](caf::error&) { with_subagents(0); });
}

std::string stopped_text(int32_t n) {
  return n > 0 ? "Stopped " + std::to_string(n) + " task(s)."
               : "No active task to stop.";
}

bool counts_subagents(const parsed_command& cmd) {
  return cmd.spec && (cmd.spec->run == cmd_status || cmd.spec->run == cmd_stop);
}

} // namespace nb

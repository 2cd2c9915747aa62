// A final answer while a sustained goal is active does not end the turn:
// as the original's runner does, the answer stays in the transcript, a
// user message asking to go on with the goal follows it, and the loop
// iterates on within the turn's iteration limit (where the usual limit
// handling, and the session's continuation turn, take over). The session
// owns the goal, so it is asked at that moment: a goal this turn created
// or ended counts. Only a session's main-agent turn asks (a subagent has
// no session and no goal tools), and not while messages the user sent
// meanwhile wait: those come next, in a turn of their own. Nor when no goal
// can be active: while a turn runs the goal changes only through this
// runner's goal tools (the session applies /goal and WebUI edits between
// turns), so a turn that began without one and called none has none, and
// a plain turn spends no round trip to the session (and no clock entry for
// its deadline) on asking.
#include <caf/event_based_actor.hpp>

#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/runner/runner_steps.hpp"
#include "messages/goal.hpp"

namespace nb::runner_steps {

namespace {

bool goal_may_continue(const runner_state& st) {
  return st.session && st.request.allowed_tools.empty()
         && (st.request.sustained_goal || st.goal_tool_used)
         && !st.injections_waiting && !st.cancelled;
}

} // namespace

void answer_or_continue_goal(runner_pointer self, std::string answer,
                             bool streamed) {
  auto& st = self->state;
  if (!goal_may_continue(st)) {
    finish(self, std::move(answer), turn_stop::completed, streamed);
    return;
  }
  auto session = caf::actor_cast<session_goal_view>(st.session);
  timed_request(self, session, std::chrono::seconds(30),
                goal_continue_query{})
    .then(
      [=](std::string& prompt) {
        auto& st = self->state;
        if (st.cancelled) // /stop ended the turn meanwhile
          return;
        if (prompt.empty() || st.injections_waiting) {
          finish(self, answer, turn_stop::completed, streamed);
          return;
        }
        log::get("runner")->info("[{}] goal still active: continuing the "
                                 "turn (iteration {} of {})",
                                 st.request.session_key, st.iteration + 1,
                                 st.request.max_iterations);
        st.goal_continued = true;
        add_message(self, {{"role", "user"}, {"content", std::move(prompt)}});
        ++st.iteration;
        model_step(self);
      },
      [=](caf::error& err) {
        log::get("runner")->warn("[{}] goal state unavailable: {}",
                                 self->state.request.session_key,
                                 render(self, err));
        if (!self->state.cancelled)
          finish(self, answer, turn_stop::completed, streamed);
      });
}

} // namespace nb::runner_steps

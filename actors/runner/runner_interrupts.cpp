// What interrupts a turn's loop between its steps: /stop (the running model
// call and tool calls are cancelled, the transcript kept legal) and the
// messages the user sent meanwhile (taken in before the next model call).
#include <caf/event_based_actor.hpp>

#include "actors/common/timed_request.hpp"
#include "actors/runner/runner_steps.hpp"
#include "actors/runner/turn_texts.hpp"

namespace nb::runner_steps {

/// Ends a run the user stopped: calls still running get an "interrupted"
/// result so the saved transcript stays legal; the rest is kept as it is.
void finish_cancelled(runner_pointer self) {
  auto& st = self->state;
  close_stream_segment(self);
  // A model call still running (or waiting to retry) would go on costing
  // tokens for an answer nobody reads.
  if (!st.model_call.empty())
    self->send(st.provider, model_cancel{st.model_call});
  // Calls sent to the tools and not answered yet: a running exec is
  // killed with its whole process group, which frees its lane.
  cancel_tools stop{st.request.session_key, {}};
  for (size_t b = 0; b < st.batch_index && b < st.batches.size(); ++b)
    for (auto i : st.batches[b].calls)
      if (i < st.results.size() && st.results[i].call_id.empty())
        stop.call_ids.push_back(st.calls[i].id);
  if (st.tools && !stop.call_ids.empty())
    self->send(st.tools, std::move(stop));
  for (size_t i = 0; i < st.calls.size(); ++i) {
    auto r = st.results[i];
    if (r.call_id.empty())
      r = {st.calls[i].id, st.calls[i].name, texts::tool_interrupted, true, 0, 0};
    add_message(self, {{"role", "tool"},
                       {"tool_call_id", r.call_id},
                       {"name", r.name},
                       {"content", r.content}});
  }
  st.calls.clear();
  finish(self, "", turn_stop::cancelled);
}

/// Between model calls: takes the messages the user sent meanwhile (up to
/// three per check, at most five checks per turn), then calls the model.
void continue_run(runner_pointer self) {
  auto& st = self->state;
  if (!st.session || !st.injections_waiting || st.injection_cycles >= 5) {
    model_step(self);
    return;
  }
  st.injections_waiting = false;
  ++st.injection_cycles;
  st.taking = true;
  timed_request(self, st.session, std::chrono::seconds(30),
                take_injections_atom::value)
    .then(
      [=](std::vector<inbound_msg>& msgs) {
        self->state.taking = false;
        for (auto& in : msgs)
          add_message(self, {{"role", "user"}, {"content", in.content}});
        if (self->state.cancelled)
          finish_cancelled(self);
        else
          model_step(self);
      },
      [=](caf::error&) {
        self->state.taking = false;
        if (self->state.cancelled)
          finish_cancelled(self);
        else
          model_step(self);
      });
}

} // namespace nb::runner_steps

// The tool half of a turn's loop: runs the batches of calls, offloads
// oversized results, appends the results and goes back to the model.
#include <algorithm>

#include <caf/event_based_actor.hpp>
#include <caf/spawn_options.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/runner/goal_tools.hpp"
#include "messages/goal.hpp"
#include "actors/runner/runner_steps.hpp"
#include "actors/runner/spawn_tool.hpp"
#include "actors/runner/tool_batches.hpp"
#include "actors/runner/tool_offload.hpp"
#include "actors/runner/turn_texts.hpp"
#include "config/settings.hpp"

namespace nb::runner_steps {

using json = nlohmann::json;

namespace {

/// Writes oversized results to files on its own thread (fsync must not
/// stall the scheduler) and answers with the contents to use.
caf::behavior offload_worker(caf::event_based_actor* self,
                             offload_settings cfg, std::string session_key,
                             std::vector<tool_result> results) {
  name_thread("nb.offload");
  return {
    [=](caf::get_atom) {
      std::vector<std::string> out;
      for (auto& r : results)
        out.push_back(offload_tool_result(cfg, session_key, r.call_id, r.name,
                                          r.content)
                        .value_or(r.content));
      self->quit();
      return out;
    },
  };
}

void append_results(runner_pointer self);

void tool_results_done(runner_pointer self) {
  auto& st = self->state;
  bool oversized = false;
  for (auto& r : st.results)
    oversized = oversized
                || (r.content.size() > st.offload.max_chars
                    && r.name != "read_file");
  if (!oversized || st.offload.workspace.empty()) {
    append_results(self);
    return;
  }
  auto worker = self->spawn<caf::detached>(offload_worker, st.offload,
                                           st.request.session_key, st.results);
  timed_request(self, worker, std::chrono::seconds(120), caf::get_atom::value)
    .then(
      [=](std::vector<std::string>& contents) {
        auto& rs = self->state.results;
        for (size_t i = 0; i < rs.size() && i < contents.size(); ++i)
          rs[i].content = std::move(contents[i]);
        append_results(self);
      },
      [=](caf::error&) { append_results(self); });
}

void append_results(runner_pointer self) {
  auto& st = self->state;
  for (auto& r : st.results)
    add_message(self, {{"role", "tool"},
                       {"tool_call_id", r.call_id},
                       {"name", r.name},
                       {"content", r.content}});
  if (st.request.fail_on_tool_error) {
    // A subagent stops at its first failed tool; its manager reports it.
    for (auto& r : st.results)
      if (r.is_error) {
        ++st.iteration;
        finish(self, r.name + ": " + r.content, turn_stop::tool_error);
        return;
      }
  }
  st.calls.clear();
  st.results.clear();
  st.batches.clear();
  ++st.iteration;
  continue_run(self);
}

void call_done(runner_pointer self, size_t index, tool_result r) {
  if (r.delivered_to_origin)
    self->state.outcome.delivered_by_tool = true;
  self->state.results[index] = std::move(r);
  if (--self->state.batch_remaining == 0)
    execute_batches(self);
}

/// Sends call `index` to the subagent manager as `rq`; its answer is the
/// call's result (`what` names the failure otherwise).
template <class Request>
void ask_manager(runner_pointer self, size_t index, Request rq,
                 caf::duration timeout, std::string what) {
  timed_request(self, self->state.subagents, timeout, std::move(rq))
    .then([=](tool_result& r) { call_done(self, index, std::move(r)); },
          [=](caf::error& err) {
            auto& c = self->state.calls[index];
            call_done(self, index,
                      {c.id, c.name,
                       "Error: " + what + " (" + render(self, err) + ")",
                       true, 0, 0});
          });
}

/// A spawn call goes to the subagent manager, which answers like a tool.
void run_spawn(runner_pointer self, size_t index) {
  auto& st = self->state;
  spawn_subagent rq{st.request.session_key, st.request.channel,
                    st.request.chat_id, st.request.model, st.calls[index]};
  // The subagent works as this agent: its workspace, its tools.
  rq.agent = st.request.agent;
  rq.workspace = st.offload.workspace;
  rq.tools = caf::actor_cast<caf::actor>(st.tools);
  ask_manager(self, index, std::move(rq), caf::duration{st.tool_timeout},
              "the subagent could not run");
}

/// A send_to_agent call goes to the subagent manager too: it runs a turn
/// of the other agent and answers with its reply.
void run_send_to_agent(runner_pointer self, size_t index) {
  auto& st = self->state;
  agent_message rq{st.request.agent, st.request.session_key,
                   st.request.agent_depth, st.calls[index]};
  // The other agent's turn may itself call tools and models.
  ask_manager(self, index, std::move(rq),
              caf::duration{st.model_timeout + st.tool_timeout},
              "the other agent could not be asked");
}

/// create_goal and update_goal go to the session, which owns the goal
/// state and answers like a tool once the new state is on disk.
void run_goal_tool(runner_pointer self, size_t index) {
  auto& st = self->state;
  // The session actor answers goal calls too (messages/goal.hpp).
  auto session = caf::actor_cast<session_goal_view>(st.session);
  st.goal_tool_used = true;
  timed_request(self, session, std::chrono::seconds(90),
                goal_tool_call{st.calls[index]})
    .then([=](tool_result& r) { call_done(self, index, std::move(r)); },
          [=](caf::error& err) {
            auto& c = self->state.calls[index];
            call_done(self, index,
                      {c.id, c.name,
                       "Error: the goal could not be changed ("
                         + render(self, err) + ")",
                       true, 0, 0});
          });
}

/// What the my tool may show of this turn: no secret is in it.
std::string turn_view(runner_pointer self) {
  auto& st = self->state;
  json usage = json::object();
  if (st.model_calls > 0) {
    usage = {{"prompt_tokens", st.usage_sum.prompt_tokens},
             {"completion_tokens", st.usage_sum.completion_tokens},
             {"total_tokens", st.usage_sum.total_tokens}};
    if (st.usage_sum.cached_tokens > 0)
      usage["cached_tokens"] = st.usage_sum.cached_tokens;
  }
  json names = json::array();
  for (auto& s : st.specs)
    names.push_back(s.name);
  return json{{"model", st.request.model},
              {"model_preset", st.request.model_preset.empty()
                                 ? json(nullptr)
                                 : json(st.request.model_preset)},
              {"context_window_tokens", st.context_window_tokens},
              {"max_iterations", st.request.max_iterations},
              {"current_iteration", st.iteration},
              {"last_usage", usage},
              {"tool_names", names},
              {"max_tool_result_chars", st.offload.max_chars},
              {"sender_id", st.request.sender_id}}
    .dump(-1, ' ', false, json::error_handler_t::replace);
}

void run_call(runner_pointer self, size_t index) {
  auto& st = self->state;
  const auto& call = st.calls[index];
  auto& allowed = st.request.allowed_tools;
  if (!allowed.empty()
      && std::find(allowed.begin(), allowed.end(), call.name)
           == allowed.end()) {
    // Outside this run's scope (a subagent asking for message or spawn):
    // refused here, never sent. Such a call always forms a batch alone.
    call_done(self, index, out_of_scope(call, st.specs));
    return;
  }
  if (!tool_permitted(call.name, st.tools_allow, st.tools_deny)) {
    // One of the runner's own tools the agent may not use (the front
    // refuses its own the same way).
    call_done(self, index, not_permitted(call));
    return;
  }
  if (call.name == "spawn" && st.subagents) {
    run_spawn(self, index);
    return;
  }
  if (is_goal_tool(call.name) && st.session && allowed.empty()) {
    run_goal_tool(self, index);
    return;
  }
  if (call.name == "send_to_agent" && st.subagents
      && !st.request.can_message.empty()) {
    run_send_to_agent(self, index);
    return;
  }
  tool_request rq;
  rq.session_key = st.request.session_key;
  rq.call = st.calls[index];
  rq.channel = st.request.channel;
  rq.chat_id = st.request.chat_id;
  rq.suppress_delivery = st.request.suppress_delivery;
  rq.outbox = st.request.outbox;
  rq.mail = caf::actor_cast<caf::actor>(st.subagents);
  if (call.name == "my")
    rq.turn_json = turn_view(self);
  timed_request(self, st.tools, st.tool_timeout, std::move(rq))
    .then([=](tool_result& r) { call_done(self, index, std::move(r)); },
          [=](caf::error& err) {
            auto& c = self->state.calls[index];
            call_done(self, index,
                      {c.id, c.name,
                       "Error: the tool could not run (" + render(self, err)
                         + ")",
                       true, 0, 0});
          });
}

} // namespace

void run_or_hold_tools(runner_pointer self) {
  auto& st = self->state;
  if (st.user_unsaved) {
    st.tools_waiting = true;
    return;
  }
  execute_batches(self);
}

void release_held_tools(runner_pointer self) {
  auto& st = self->state;
  st.user_unsaved = false;
  if (!st.tools_waiting || st.cancelled)
    return;
  st.tools_waiting = false;
  execute_batches(self);
}

/// Runs the next batch; parallel batches fan out at once, others run alone.
void execute_batches(runner_pointer self) {
  auto& st = self->state;
  if (st.batch_index >= st.batches.size()) {
    tool_results_done(self);
    return;
  }
  // A copy: a call answered on the spot may run the rest of the turn (and
  // clear the batches) before this loop ends.
  auto calls = st.batches[st.batch_index++].calls;
  st.batch_remaining = calls.size();
  for (auto i : calls)
    run_call(self, i);
}


} // namespace nb::runner_steps

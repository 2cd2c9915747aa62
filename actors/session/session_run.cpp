// The RUN state: the model's input (the replayed transcript with this
// turn's runtime context) and the runner that works through it.
#include "actors/session/session.hpp"
#include "actors/session/session_steps.hpp"

#include <algorithm>
#include <cstdlib>

#include "actors/common/timed_request.hpp"
#include "actors/runner/context_governor.hpp"
#include "actors/runner/runner.hpp"
#include "actors/session/archive.hpp"
#include "actors/session/prompt.hpp"
#include "actors/session/session_recall.hpp"
#include "actors/session/transcript.hpp"
#include "messages/provider_admin.hpp"

namespace nb {

using json = nlohmann::json;

namespace {

/// The system message for `prompt`: the workspace actor's shared one when
/// it sent it (`made`), else the last turn's when the prompt did not change
/// (compared, so it can never be another prompt's), else a new one.
shared_model_message system_message(session_pointer self,
                                    const std::string& prompt,
                                    shared_model_message made = nullptr) {
  auto& last = self->state.system_message;
  if (made)
    last = std::move(made);
  else if (!last || last->fields()["content"] != prompt)
    last = make_model_message({{"role", "system"}, {"content", prompt}});
  return last;
}

std::vector<shared_model_message> model_messages(session_pointer self) {
  auto& st = self->state;
  std::vector<shared_model_message> msgs;
  if (st.svc.workspace) {
    // Served by the workspace actor at BUILD.
    msgs.push_back(system_message(self, st.turn->system_prompt,
                                  st.turn->system_made));
  } else {
    auto path = std::getenv("PATH");
    prompt_inputs in{st.cfg.workspace, st.turn->message.channel,
                     st.key,           st.summary,
                     st.summary_at,    path ? path : ""};
    msgs.push_back(system_message(self, st.prompt.get(in)));
  }
  st.prompt_tokens = msgs[0]->tokens();
  // The transcript already ends with this turn's user message; archived
  // turns are left out (their summary is in the system prompt). Their
  // made messages are the transcript's own: nothing is written out again.
  auto history =
    replay_history(st.transcript, st.cfg.replay_limit,
                   replay_start(st.transcript, st.archived - st.base));
  msgs.reserve(history.size() + 1);
  msgs.insert(msgs.end(), history.begin(), history.end());
  if (role_of(msgs.back()->fields()) != "user")
    return msgs;
  // This turn's user message gets its runtime context: a new message,
  // from the plain replay form (the context names its attached apps, not
  // the earlier lines' note).
  const json& own = st.transcript.back();
  auto last = role_of(own) == "user" && !is_command(own)
                ? replayable(own)
                : msgs.back()->form();
  if (!st.turn->user_content.is_null())
    last["content"] = st.turn->user_content;
  // After the user's text, so the prefix stays cacheable.
  auto block =
    runtime_context(st.turn->message.channel, st.turn->message.chat_id,
                    st.turn->message.sender_id, st.cfg.zone.get());
  if (auto note = session_mail_note(st.turn->message.metadata_json);
      !note.empty())
    block.insert(block.rfind("\n[/Runtime Context]"), "\n" + note);
  // The active goal as metadata, then what to do about it.
  if (!st.turn->cli_app_lines.empty())
    block.insert(block.rfind("\n[/Runtime Context]"), st.turn->cli_app_lines);
  if (auto lines = goal_context_lines(self); !lines.empty())
    block.insert(block.rfind("\n[/Runtime Context]"), lines);
  if (auto guide = goal_guidance(self); !guide.empty())
    block += "\n\n" + guide;
  add_recall(self, block);
  auto& c = last["content"];
  if (c.is_string())
    c = c.get<std::string>() + block;
  else if (c.is_array() && !c.empty() && c.back().value("type", "") == "text")
    c.back()["text"] = c.back()["text"].get<std::string>() + block;
  msgs.back() = make_model_message(std::move(last));
  return msgs;
}

/// The runner's mark of a refusal on the final answer ("_finish_reason"):
/// read for the goal's continuation, never stored.
answer_finish take_finish_mark(std::vector<json>& msgs) {
  if (msgs.empty() || !msgs.back().contains("_finish_reason"))
    return answer_finish::normal;
  auto fr = msgs.back().value("_finish_reason", "");
  msgs.back().erase("_finish_reason");
  return answer_finish_from(fr);
}

/// Whether inbound metadata asks the message tool not to deliver (the
/// heartbeat's turns: their output goes through the evaluator instead).
bool suppresses_delivery(const std::string& metadata_json) {
  auto meta = json::parse(metadata_json, nullptr, false);
  return meta.is_object() && meta.contains("_suppress_message_delivery")
         && meta["_suppress_message_delivery"] == true;
}

/// How many send_to_agent hops led to this message ("_agent_depth").
int32_t agent_depth(const std::string& metadata_json) {
  if (metadata_json.find("_agent_depth") == std::string::npos)
    return 0;
  auto meta = json::parse(metadata_json, nullptr, false);
  if (!meta.is_object() || !meta.contains("_agent_depth")
      || !meta["_agent_depth"].is_number_integer())
    return 0;
  return std::clamp(meta["_agent_depth"].get<int32_t>(), 0, 1000);
}

/// Whether RUN waits for the tools front's catalog: when this session has
/// none yet, or an incomplete one (an MCP server had not listed), it asks
/// once per turn and RUN goes on with the answer. Otherwise the kept one
/// serves: the front sends a newer one whenever its tools change.
bool awaits_tool_catalog(session_pointer self) {
  auto& st = self->state;
  if (!st.svc.tools || st.tools_catalog_unsupported || st.turn->tools_asked
      || (st.tools.specs && st.tools.complete))
    return false;
  st.turn->tools_asked = true;
  auto still_running = [self] {
    auto& st = self->state;
    return st.turn && !st.turn->runner && st.machine.state() == turn_state::run;
  };
  // A tools front answers it; anything else (a test's stand-in) does not,
  // and its runner lists the tools itself as before.
  auto front = caf::actor_cast<tools_admin_actor>(st.svc.tools);
  timed_request(self, front, std::chrono::seconds(30),
                tool_catalog_atom::value)
    .then(
      [=](tool_catalog& c) {
        guarded(self, [&] {
          keep_tool_catalog(self, c);
          if (still_running())
            do_run(self);
        });
      },
      [=](caf::error& err) {
        guarded(self, [&] {
          if (err == caf::sec::unexpected_message)
            self->state.tools_catalog_unsupported = true;
          if (still_running())
            do_run(self); // its runner lists the tools
        });
      });
  return true;
}

/// RUN's end: once the user's message is durable, on to SAVE. If its
/// append failed, the model's answer goes with it (neither kept nor sent)
/// and the turn fails: SAVE keeps the user's words and closes the turn,
/// RESPOND says what went wrong.
void end_run(session_pointer self) {
  when_user_saved(self, [=] {
    // Only the turn still in RUN goes on (a failure meanwhile moved it).
    if (!self->state.turn || self->state.machine.state() != turn_state::run)
      return;
    auto& t = *self->state.turn;
    if (t.user_save_error.empty()) {
      fire(self, turn_event::ok);
      return;
    }
    t.to_save.clear();
    t.reply.clear();
    t.conversation_set = false;
    fail(self, t.user_save_error);
  });
}

} // namespace

void keep_tool_catalog(session_pointer self, tool_catalog& c) {
  // From one front, in the order it made them: the last one is current.
  self->state.tools = std::move(c);
}

void do_run(session_pointer self) {
  auto& st = self->state;
  if (!st.turn->user_save_error.empty()) {
    // The user's message could not be appended: no model call for it.
    fail(self, st.turn->user_save_error);
    return;
  }
  if (st.turn->cancel_requested) {
    // Stopped before the model was called: keep the user's message only.
    st.turn->stop_reason = turn_stop::cancelled;
    end_run(self);
    return;
  }
  if (awaits_tool_catalog(self))
    return;
  runner_settings rs;
  rs.provider = st.svc.provider;
  rs.tools = st.svc.tools;
  rs.tool_specs = st.tools.specs; // null: the runner lists them
  rs.stats = st.svc.stats;
  rs.model_timeout = st.cfg.model_timeout;
  rs.tool_timeout = st.cfg.tool_timeout;
  rs.context_window_tokens = st.runtime.context_window_tokens;
  // A temporary chat writes no offload file: the governor cuts a long
  // result short instead.
  rs.offload =
    offload_settings{st.cfg.temporary ? std::string{} : st.cfg.workspace,
                     st.cfg.max_tool_result_chars};
  rs.session = caf::actor_cast<session_actor>(self);
  rs.model_provider = st.runtime.provider;
  rs.subagents = st.svc.subagents;
  rs.tools_allow = st.cfg.tools_allow;
  rs.tools_deny = st.cfg.tools_deny;
  rs.messages = model_messages(self); // handed over, not sent as text
  rs.conversation = std::move(st.turn->conversation);
  // Its tool calls wait until the user's message is durable.
  rs.hold_tools = st.turn->user_saving;
  auto runner = self->spawn(runner_impl, std::move(rs));
  st.turn->runner = runner;
  if (!st.pending.empty())
    self->send(runner, injections_ready_atom::value);
  run_turn rq;
  rq.session_key = st.key;
  rq.channel = st.turn->message.channel;
  rq.chat_id = st.turn->message.chat_id;
  rq.turn_id = st.key + ":" + std::to_string(st.turn_number);
  rq.model = st.runtime.model;
  rq.max_iterations = st.cfg.max_iterations;
  rq.max_tokens = st.runtime.max_tokens;
  rq.temperature = st.runtime.temperature;
  rq.reasoning_effort = st.runtime.reasoning_effort;
  rq.stream = st.turn->message.wants_stream;
  rq.stream_to = st.turn->message.reply_to;
  rq.outbox = st.svc.outbox;
  rq.suppress_delivery = suppresses_delivery(st.turn->message.metadata_json);
  rq.agent = st.cfg.agent;
  rq.agent_depth = agent_depth(st.turn->message.metadata_json);
  rq.can_message = st.cfg.can_message;
  rq.sender_id = st.turn->message.sender_id;
  rq.model_preset = st.runtime.preset;
  rq.sustained_goal = sustained_goal_turn(self);
  st.turn->budget_unfinalized = goal_continues_at_limit(self);
  rq.finalize_on_max_iterations = !st.turn->budget_unfinalized;
  goal_status_event(self, "running");
  auto limit = st.cfg.model_timeout * (st.cfg.max_iterations + 2)
               + st.cfg.tool_timeout * st.cfg.max_iterations;
  timed_request(self, runner, limit, std::move(rq))
    .then(
      [=](turn_outcome& out) {
        guarded(self, [&] {
          auto& st = self->state;
          st.turn->to_save = parse_messages(out.new_messages);
          // The runner put the turn's usage on its last assistant message.
          token_usage context;
          st.last_turn_sum = token_usage{};
          last_recorded_usage(st.turn->to_save, st.last_turn_sum, context);
          st.turn->reply = std::move(out.final_content);
          st.turn->stop_reason = turn_stop_from(out.stop_reason);
          st.turn->finish_reason = take_finish_mark(st.turn->to_save);
          st.turn->streamed = out.streamed;
          st.last_usage = out.usage;
          st.turn->runner = nullptr;
          st.turn->delivered_by_tool = out.delivered_by_tool;
          st.turn->conversation_set = out.conversation_set;
          st.turn->conversation = std::move(out.conversation);
          end_run(self);
        });
      },
      [=](caf::error& err) {
        auto& turn = self->state.turn;
        if (turn)
          turn->runner = nullptr;
        // A failed append of the user's message is what the user hears of.
        fail(self, turn && !turn->user_save_error.empty()
                     ? turn->user_save_error
                     : "the model loop stopped unexpectedly ("
                         + render(self, err) + ")");
      });
}

} // namespace nb

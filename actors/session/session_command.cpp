// The COMMAND state: slash commands answered without the model.
#include "actors/session/commands.hpp"
#include "actors/common/iso_time.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/session_steps.hpp"
#include "actors/session/session_recall.hpp"
#include "actors/session/session_subagents.hpp"
#include "actors/session/transcript.hpp"

namespace nb {

using json = nlohmann::json;

namespace {

// -- COMMAND ------------------------------------------------------------------

/// Answers a command and ends the turn (the `shortcut` transition).
void answer_command(session_pointer self, std::string text, bool persist_it) {
  auto& st = self->state;
  auto finish = [=] {
    auto out = turn_final_reply(self, text, false);
    out.metadata_json = R"({"render_as":"text"})";
    deliver(self, std::move(out));
    fire(self, turn_event::shortcut);
  };
  if (!persist_it) {
    finish();
    return;
  }
  // Command exchanges are kept, marked so they are never replayed to the model.
  json user = user_message(st.turn->message);
  user["_command"] = true;
  json answer{{"role", "assistant"}, {"content", text},
              {"timestamp", iso_now()}, {"_command", true}};
  persist(self, {user, answer}, "the command", finish);
}

void start_new_session(session_pointer self, std::string text) {
  clear_session(
    self, [=] { answer_command(self, text, false); },
    [=](const caf::error& err) {
      fail(self, "could not start a new session (" + render(self, err) + ")");
    });
}

} // namespace

bool ask_workspace(session_pointer self, const parsed_command& cmd,
                   std::function<void(std::string)> answer) {
  auto& st = self->state;
  if (!st.svc.workspace || cmd.spec == nullptr)
    return false;
  auto failed = [=](caf::error& err) {
    answer("Could not read the workspace (" + render(self, err) + ")");
  };
  auto name = std::string{cmd.spec->name};
  if (name == "/skill") {
    timed_request(self, st.svc.workspace, st.cfg.store_timeout,
                  workspace_skills_atom::value)
      .then([=](std::string& text) { answer(std::move(text)); }, failed);
    return true;
  }
  if (name == "/evaluator-prompt" && (cmd.args.empty() || cmd.args == "init")) {
    timed_request(self, st.svc.workspace, st.cfg.store_timeout,
                  evaluator_prompt_atom::value, cmd.args == "init")
      .then([=](std::string& text) { answer(std::move(text)); }, failed);
    return true;
  }
  return false;
}

void do_command(session_pointer self) {
  auto& st = self->state;
  if (already_stored(self, st.turn->message)) {
    // Re-delivered after a restart, but kept before it: one message, one
    // turn. (Its turn was cut short; RESTORE closed it.)
    st.log->info("[{}] re-delivered message {} was stored before the "
                 "restart; not run again",
                 st.key, st.turn->message.inbox_id);
    settle_inbox(self, st.turn->message);
    fire(self, turn_event::shortcut);
    return;
  }
  if (drop_void_continuation(self)) {
    // A goal continuation /stop or /new made void, or whose goal ended.
    settle_inbox(self, st.turn->message);
    fire(self, turn_event::shortcut);
    return;
  }
  // System turns (subagent results, schedules) are never commands.
  auto cmd = never_a_command(st.turn->message)
               ? parsed_command{}
               : parse_command(st.turn->message.content);
  if (!cmd.is_command) {
    fire(self, turn_event::dispatch);
    return;
  }
  if (ask_workspace(self, cmd, [=](std::string text) {
        answer_command(self, std::move(text), true);
      }))
    return;
  auto ctx = command_context_for(self);
  ctx.busy = false;
  ctx.active_tasks = 0;
  if (wants_memory(cmd)) {
    with_memory_text(self, cmd, [=](std::string text) mutable {
      ctx.memory_text = std::move(text);
      run_parsed_command(self, cmd, ctx);
    });
    return;
  }
  if (cmd.spec && cmd.spec->run == cmd_stop && cmd.args.empty()) {
    // No turn runs; what /stop ends is counted: subagents, background exec
    // sessions, and a goal's next turn on its way.
    int32_t queued = st.continuation_queued ? 1 : 0;
    void_continuations(self);
    stop_subagents(self, [=](int32_t n) {
      answer_command(self, stopped_text(n + queued), false);
    });
    return;
  }
  if (counts_subagents(cmd) && st.svc.subagents) {
    // No turn runs, but subagents may: /status and /stop count them.
    with_subagent_count(self, [=](int32_t n) mutable {
      ctx.active_tasks = n;
      run_parsed_command(self, cmd, ctx);
    });
    return;
  }
  run_parsed_command(self, cmd, ctx);
}

void run_parsed_command(session_pointer self, const parsed_command& cmd,
                        command_context ctx) {
  auto reply = run_command(cmd, ctx);
  if (adopt_model_choice(self, reply)
      && reply.action == command_action::reply) {
    // Durable before the user reads that it changed.
    save_model_choice(self, [=, text = reply.text] {
      answer_command(self, text, true);
    });
    return;
  }
  switch (reply.action) {
    case command_action::new_session:
      void_continuations(self);
      stop_subagents(self, {});
      start_new_session(self, std::move(reply.text));
      return;
    case command_action::stop:
      void_continuations(self);
      stop_subagents(self, [=](int32_t n) {
        answer_command(self, stopped_text(n), false);
      });
      return;
    case command_action::reply:
      answer_command(self, std::move(reply.text), true);
      return;
    case command_action::goal:
      // On to the model, allowed to record the goal (create_goal).
      self->state.turn->goal_requested = true;
      self->state.turn->goal_permission = true;
      fire(self, turn_event::dispatch);
      return;
  }
}

} // namespace nb

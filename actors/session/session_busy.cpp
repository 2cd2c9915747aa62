// What a session does with messages that arrive while a turn runs: commands
// are answered at once (/stop cancels the turn), plain messages wait to be
// injected into the running turn or to start the next one, in order.
#include "actors/session/session.hpp"
#include "actors/session/session_recall.hpp"
#include "actors/session/session_steps.hpp"
#include "actors/session/session_subagents.hpp"

#include "actors/common/log.hpp"

namespace nb {

namespace {

/// At most this many waiting messages go into a turn at one check.
constexpr size_t injections_per_check = 3;

bool injectable(const inbound_msg& in) {
  // A goal's continuation is a turn of its own, never part of another.
  if (is_goal_continuation(in))
    return false;
  return never_a_command(in) || !parse_command(in.content).is_command;
}

} // namespace

command_context command_context_for(session_pointer self) {
  auto& st = self->state;
  command_context ctx;
  ctx.session_key = st.key;
  ctx.agent = st.cfg.agent;
  ctx.agent_name = st.cfg.agent_name;
  ctx.workspace = st.cfg.workspace;
  ctx.disabled_skills = &st.cfg.disabled_skills;
  ctx.model = st.model;
  ctx.context_window_tokens = st.runtime.context_window_tokens;
  ctx.max_tokens = st.runtime.max_tokens;
  ctx.models = &st.cfg.models;
  ctx.preset = st.runtime.preset;
  ctx.last_turn_sum = st.last_turn_sum;
  ctx.transcript = &st.transcript;
  ctx.earlier_messages = st.base;
  ctx.earlier_usage = &st.earlier_usage;
  ctx.last_usage = st.last_usage;
  ctx.uptime_s = (now_us() - st.cfg.started_at_us) / 1000000;
  ctx.busy = st.turn != nullptr;
  ctx.active_tasks = ctx.busy ? 1 : 0;
  ctx.memory_status = st.memory_mode;
  return ctx;
}

int32_t cancel_turn(session_pointer self, outbound_sink by) {
  auto& st = self->state;
  if (!st.turn || st.machine.done() || st.turn->cancel_requested)
    return 0;
  st.turn->cancel_requested = true;
  st.turn->stopped_by = std::move(by);
  st.log->info("[{}] [T{}] stopping the running turn", st.key,
               st.turn_number);
  if (st.turn->runner)
    self->send(st.turn->runner, cancel_turn_atom::value);
  return 1;
}

std::vector<inbound_msg> take_injections(session_pointer self) {
  auto& st = self->state;
  std::vector<inbound_msg> out;
  if (!st.turn)
    return out; // nothing runs to take them
  while (!st.pending.empty() && out.size() < injections_per_check
         && !st.turn->cancel_requested && injectable(st.pending.front())) {
    auto& in = st.pending.front();
    if (already_stored(self, in)) {
      // A re-delivery of a message kept before a restart: not again.
      settle_inbox(self, in);
      st.pending.pop_front();
      continue;
    }
    if (in.reply_to && in.reply_to != st.turn->message.reply_to)
      st.turn->injected_sinks.push_back(in.reply_to);
    out.push_back(std::move(in));
    st.pending.pop_front();
  }
  // More are waiting: the runner takes them at its next check.
  if (!out.empty() && !st.pending.empty() && st.turn->runner
      && injectable(st.pending.front()))
    self->send(st.turn->runner, injections_ready_atom::value);
  return out;
}

void while_busy(session_pointer self, inbound_msg in) {
  auto& st = self->state;
  auto cmd = never_a_command(in) ? parsed_command{} : parse_command(in.content);
  if (!cmd.is_command) {
    st.pending.push_back(std::move(in));
    if (st.turn && st.turn->runner && st.pending.size() == 1)
      self->send(st.turn->runner, injections_ready_atom::value);
    return;
  }
  if (ask_workspace(self, cmd, [=](std::string text) {
        deliver_to(self, in, command_answer_to(self, in, std::move(text)));
      }))
    return;
  if (wants_memory(cmd)) {
    // /memory and /stats ask the memory first; they change nothing.
    with_memory_text(self, cmd, [=](std::string text) {
      auto ctx = command_context_for(self);
      ctx.memory_text = std::move(text);
      deliver_to(self, in,
                 command_answer_to(self, in, run_command(cmd, ctx).text));
    });
    return;
  }
  auto ctx = command_context_for(self);
  auto reply = run_command(cmd, ctx);
  // The running turn keeps its model; the file is rewritten at its end.
  if (adopt_model_choice(self, reply))
    st.preset_unsaved = true;
  switch (reply.action) {
    case command_action::new_session:
      // The fresh start waits for the stopped turn to end, in order.
      void_continuations(self);
      cancel_turn(self, in.reply_to);
      stop_subagents(self, {});
      st.pending.push_back(std::move(in));
      return;
    case command_action::stop: {
      // The turn stops now; the answer counts the subagents stopped too.
      // The goal does not go on by itself after it.
      void_continuations(self);
      auto n = cancel_turn(self, in.reply_to);
      stop_subagents(self, [=](int32_t m) {
        deliver_to(self, in, command_answer_to(self, in, stopped_text(n + m)));
        settle_inbox(self, in);
      });
      return;
    }
    case command_action::reply:
    case command_action::goal: // never while busy (cmd_goal refuses)
      break;
  }
  if (counts_subagents(cmd) && st.svc.subagents) {
    // /status: asked again with the subagents counted (it has no effects).
    with_subagent_count(self, [=](int32_t m) {
      auto ctx = command_context_for(self);
      ctx.active_tasks += m;
      deliver_to(self, in,
                 command_answer_to(self, in, run_command(cmd, ctx).text));
      settle_inbox(self, in);
    });
    return;
  }
  deliver_to(self, in, command_answer_to(self, in, std::move(reply.text)));
  settle_inbox(self, in);
}

} // namespace nb

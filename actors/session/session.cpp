#include "actors/session/session.hpp"

#include <caf/actor_clock.hpp>
#include <caf/skip.hpp>

#include "actors/common/guard.hpp"
#include "actors/common/own_timer.hpp"
#include "actors/common/log.hpp"
#include "actors/common/stray_errors.hpp"
#include "config/settings.hpp"

namespace nb {

session_config make_session_config(const settings& cfg) {
  session_config out;
  out.model = cfg.agent.model;
  out.max_tokens = cfg.agent.max_tokens;
  out.context_window_tokens = cfg.agent.context_window_tokens;
  out.temperature = cfg.agent.temperature;
  out.max_iterations = cfg.agent.max_tool_iterations;
  out.workspace = cfg.workspace_path();
  out.disabled_skills = cfg.agent.disabled_skills;
  out.tools_allow = cfg.tools.allow;
  out.tools_deny = cfg.tools.deny;
  if (!cfg.config_path.empty())
    out.config_dir = cfg.config_dir();
  out.cli_apps = cfg.tools.cli_apps.enable;
  out.unified_session = cfg.agent.unified_session;
  out.models = make_model_catalog(cfg);
  out.model_timeout = cfg.model_request_timeout(true);
  out.tool_timeout = std::chrono::seconds(
    std::max(cfg.tools.exec.timeout_s, 600) + 60);
  out.idle = std::chrono::seconds(std::max(cfg.gateway.session_idle_s, 1));
  out.idle_compact_after = std::chrono::minutes(
    std::max(cfg.agent.idle_compact_after_minutes, 0));
  out.max_tool_result_chars = static_cast<size_t>(
    std::max(cfg.agent.max_tool_result_chars, 1));
  if (!cfg.agent.timezone.empty()) {
    std::string why;
    if (auto zone = cron::time_zone::load(cfg.agent.timezone, &why))
      out.zone = std::make_shared<const cron::time_zone>(std::move(*zone));
    else
      log::get("session")->warn("agents.defaults.timezone: {}; the runtime "
                                "context shows the host's time zone",
                                why);
  }
  return out;
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

void deliver_to(session_pointer self, const inbound_msg& in, outbound_msg msg) {
  auto& st = self->state;
  if (in.reply_to)
    self->send(in.reply_to, std::move(msg));
  else if (st.svc.outbox)
    self->send(st.svc.outbox, std::move(msg));
  else
    st.log->warn("[{}] no route for a reply on channel '{}'", st.key,
                 msg.channel);
}

void deliver(session_pointer self, outbound_msg msg) {
  auto& turn = self->state.turn;
  // Between turns nobody waits for an answer: the outbox takes it.
  deliver_to(self, turn ? turn->message : inbound_msg{}, std::move(msg));
}

namespace {

session_goal_view::behavior_type accepting(session_pointer self);

/// How often an idle session wakes up: for the idle compaction check, and
/// to offer to quit.
std::chrono::milliseconds idle_tick(const session_config& cfg) {
  auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.idle);
  if (cfg.idle_compact_after.count() <= 0)
    return idle;
  return std::max(std::chrono::milliseconds(10),
                  std::min(idle, cfg.idle_compact_check));
}

void arm_idle_tick(session_pointer self, caf::actor_clock::time_point due);

/// Between turns: the idle compaction check, and once idle long enough the
/// offer to quit; during a turn nothing. The next tick comes a tick after
/// the last turn ended (as a receive timeout the turn re-armed would), or a
/// tick from now when that has passed.
void on_idle_tick(session_pointer self) {
  auto& st = self->state;
  auto now = self->clock().now();
  if (!st.turn) {
    try {
      idle_compact_tick(self);
    } catch (...) {
      // The chat stays usable; the check runs again at the next tick.
      guarded_failure("session", std::current_exception());
    }
    // Archiving work keeps the actor: quitting now would lose the mark
    // (the summary would be written again) or the due idle compaction.
    if (now - st.last_active >= st.cfg.idle && !archive_work_pending(self)) {
      // Offer to quit; the router agrees only if nothing is on its way here.
      self->send(st.router, session_idle{st.key, st.received});
    }
  }
  auto tick = idle_tick(st.cfg);
  arm_idle_tick(self,
                now - st.last_active < tick ? st.last_active + tick : now + tick);
}

/// The tick is armed once per firing (run_at): CAF's receive timeout
/// (`after` in the behaviour) was armed again after every batch of
/// messages, about twice a plain turn, each a wake-up of the clock thread.
void arm_idle_tick(session_pointer self, caf::actor_clock::time_point due) {
  run_at(self, due, [self] { on_idle_tick(self); });
}

/// While a turn runs: /stop, /status and the other commands are answered
/// at once; plain messages wait in `pending` (in order) for the runner to
/// inject them or for the next turn. A flush waits for the turn's end.
session_goal_view::behavior_type busy(session_pointer self) {
  return {
    guard("session",
          [=](inbound_msg& in) {
            auto t = self->state.meter.measure();
            ++self->state.received;
            while_busy(self, std::move(in));
          }),
    [=](flush_atom) -> caf::result<bool> {
      // Answered once the turn has ended (in accepting).
      self->state.draining = true;
      return caf::skip;
    },
    guard("session",
          [=](take_injections_atom) { return hand_out_injections(self); }),
    guard("session", [=](goal_tool_call& g) { return goal_call(self, g); }),
    guard("session",
          [=](goal_continue_query) { return goal_continue_text(self); }),
    guard("session", [=](tool_catalog& c) { keep_tool_catalog(self, c); }),
    [=](session_admin&) -> caf::result<caf::ok_atom> {
      return caf::skip; // applied once the turn has ended (in accepting)
    },
  };
}

void start_turn(session_pointer self, inbound_msg in) {
  auto& st = self->state;
  ++st.turn_number;
  // Everything of the last turn went with it; this one starts afresh.
  st.turn = std::make_unique<running_turn>();
  st.turn->message = std::move(in);
  st.machine.start(now_us());
  self->become(busy(self));
  enter_state(self);
}

session_goal_view::behavior_type accepting(session_pointer self) {
  return {
    guard("session",
          [=](inbound_msg& in) {
            auto t = self->state.meter.measure();
            ++self->state.received;
            if (self->state.draining) {
              self->state.pending.push_back(std::move(in));
              return;
            }
            start_turn(self, std::move(in));
          }),
    [=](flush_atom) -> caf::result<bool> {
      // New messages wait for the next start; background work (an archive
      // being written) finishes before the flush is answered.
      auto& st = self->state;
      st.draining = true;
      if (st.background == 0)
        return true;
      auto rp = self->make_response_promise<bool>();
      st.flush_waiters.push_back(rp);
      return rp;
    },
    [=](take_injections_atom) { return std::vector<inbound_msg>{}; },
    guard("session", [=](goal_tool_call& g) { return goal_call(self, g); }),
    guard("session",
          [=](goal_continue_query) { return goal_continue_text(self); }),
    guard("session",
          [=](session_admin& a) { return apply_admin(self, a); }),
    guard("session", [=](tool_catalog& c) { keep_tool_catalog(self, c); }),
  };
}

} // namespace

void turn_finished(session_pointer self) {
  auto& st = self->state;
  turn_sample sample;
  sample.agent = st.cfg.agent;
  sample.trace = st.machine.take_trace();
  for (auto& s : sample.trace)
    sample.total_us += s.duration_us;
  auto stop = st.turn ? st.turn->stop_reason : turn_stop::none;
  if (st.machine.failed())
    sample.outcome = "error";
  else if (stop != turn_stop::none)
    sample.outcome = to_string(stop);
  else
    sample.outcome = "command";
  if (st.machine.failed())
    st.meter.failed();
  if (st.svc.stats)
    self->send(st.svc.stats, std::move(sample));
  if (st.turn) {
    // Whatever the outcome, this turn's messages were handled: a failure
    // was told to the user and a crash of this actor never gets here.
    settle_inbox(self, st.turn->message);
    for (auto& id : st.turn->injected_inbox_ids)
      if (st.svc.inbox)
        self->send(st.svc.inbox, inbox_settle{id});
  }
  // The turn's data goes with it: a late reply finds no turn to change.
  st.turn.reset();
  st.last_active = self->clock().now();
  // An archive mark that arrived during the turn: the file is quiet now.
  // Dropped from memory first: the rewrite keeps them as the file has
  // them instead of writing every held message out again.
  forget_archived(self);
  write_memory_meta(self);
  // A /model switch made while the turn ran: the file can be rewritten now.
  if (st.preset_unsaved && st.loaded)
    save_model_choice(self, nullptr);
  self->become(accepting(self));
  // What arrived during the turn runs next, in arrival order (unless the
  // gateway is stopping: then it waits for the next start).
  if (!st.pending.empty() && !st.draining) {
    auto next = std::move(st.pending.front());
    st.pending.pop_front();
    start_turn(self, std::move(next));
  }
}

session_goal_view::behavior_type
session_impl(session_pointer self, std::string key, session_config cfg,
             session_services svc, router_actor router) {
  auto& st = self->state;
  st.key = std::move(key);
  st.cfg = std::move(cfg);
  st.svc = std::move(svc);
  st.router = std::move(router);
  st.log = log::get("session");
  st.runtime = st.cfg.models.defaults;
  st.model = st.runtime.model;
  st.meter.start(self, "session", st.svc.stats);
  st.last_active = self->clock().now();
  arm_idle_tick(self, st.last_active + idle_tick(st.cfg));
  drop_stray_errors(self, "session", st.key);
  // Told to stop (the router retires it, the gateway shuts down): a running
  // turn's runner stops with it rather than outliving it, waiting out its
  // model and tool timeouts on a provider that is stopping too.
  self->set_exit_handler([self](caf::exit_msg& em) {
    if (!em.reason)
      return; // a linked helper (an archive worker) finished normally
    auto& turn = self->state.turn;
    if (turn && turn->runner)
      self->send_exit(turn->runner, em.reason);
    self->quit(em.reason);
  });
  return accepting(self);
}

} // namespace nb

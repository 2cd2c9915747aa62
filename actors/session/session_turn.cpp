// The work of each turn state. Every state ends by calling fire() (or fail()),
// which consults the pure transition table for what comes next.
#include "actors/session/session.hpp"
#include "actors/common/iso_time.hpp"
#include "actors/session/session_steps.hpp"

#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/spawn_options.hpp>

#include "actors/session/commands.hpp"
#include "actors/session/archive.hpp"
#include "actors/common/image_content.hpp"
#include "actors/skills/skills.hpp"
#include "actors/session/prompt.hpp"
#include "actors/session/session_recall.hpp"
#include "actors/session/transcript.hpp"

namespace nb {

using json = nlohmann::json;

namespace {

// -- RESTORE ------------------------------------------------------------------

void do_restore(session_pointer self) {
  auto& st = self->state;
  if (st.loaded) {
    fire(self, turn_event::ok);
    return;
  }
  timed_request(self, st.svc.store, st.cfg.store_timeout, session_load{st.key})
    .then(
      [=](session_snapshot& snap) {
        guarded(self, [&] {
          auto& st = self->state;
          auto loaded = parse_messages(snap.messages);
          st.transcript.assign(loaded.begin(), loaded.end());
          load_memory_meta(self, snap.metadata_json);
          load_model_choice(self, snap.metadata_json);
          st.has_conversation = snap.has_conversation;
          if (snap.skipped_lines > 0)
            self->state.log->warn("[{}] skipped {} corrupt line(s) in the "
                                      "session file", st.key, snap.skipped_lines);
          st.loaded = true;
          // Built-in skills the summary points at must be readable files
          // (the workspace actor writes them when there is one).
          if (!st.svc.workspace)
            materialize_builtin_skills(st.cfg.workspace);
          auto fixes = repair_tail(st.transcript);
          if (fixes.empty()) {
            fire(self, turn_event::ok);
            return;
          }
          self->state.log->warn("[{}] repairing a turn a crash interrupted "
                                    "({} message(s) added)", st.key, fixes.size());
          persist(self, std::move(fixes), "the repaired transcript",
                  [=] { fire(self, turn_event::ok); });
        });
      },
      [=](caf::error& err) {
        fail(self, "could not read this conversation's history ("
                     + render(self, err) + ")");
      });
}

// -- BUILD --------------------------------------------------------------

void do_build(session_pointer self) {
  auto& st = self->state;
  // Memory is searched while the user's message is being saved.
  start_recall(self);
  auto persist_user = [=] {
    // The user's message is being appended while the model is asked (the
    // inbox journal holds it meanwhile); the settle, tool calls and SAVE
    // wait for the append (session_user_save.cpp).
    save_user_message(self);
    // The system prompt is fetched (the workspace actor's thread) while
    // memory is searched (the index's): neither needs the other, and the
    // two hops, one after the other, were two wake-ups on the turn's path.
    auto turn_no = self->state.turn_number;
    auto waiting = std::make_shared<int>(2);
    auto one_done = [=] {
      if (--*waiting > 0)
        return;
      auto& st = self->state;
      if (!st.turn || st.turn_number != turn_no
          || st.machine.state() != turn_state::build)
        return; // the turn ended meanwhile (a failure, /stop)
      fetch_cli_app_lines(self, [=] { fire(self, turn_event::ok); });
    };
    fetch_prompt(self, one_done);
    after_recall(self, one_done);
  };
  auto with_conversation = [=](std::function<void()> then) {
    // The saved provider conversation, as it was before the user's message
    // (the runner adds the message, as the model sees it, to its pending).
    if (!self->state.has_conversation) {
      then();
      return;
    }
    auto& st = self->state;
    timed_request(self, st.svc.store, st.cfg.store_timeout,
                  session_load{st.key, true})
      .then(
        [=](session_snapshot& snap) {
          self->state.has_conversation = snap.has_conversation;
          self->state.turn->conversation = std::move(snap.conversation);
          then();
        },
        [=](caf::error& err) {
          // Without it the model is sent the whole transcript.
          self->state.log->warn("[{}] provider state unreadable: {}",
                                self->state.key, render(self, err));
          then();
        });
  };
  if (st.turn->message.media.empty()) {
    with_conversation(persist_user);
    return;
  }
  auto worker = self->spawn<caf::detached>(
    media_worker, st.turn->message.content, st.turn->message.media);
  timed_request(self, worker, std::chrono::seconds(60), caf::get_atom::value)
    .then(
      [=](std::string& content) {
        self->state.turn->user_content = json::parse(content, nullptr, false);
        if (self->state.turn->user_content.is_discarded())
          self->state.turn->user_content = nullptr;
        with_conversation(persist_user);
      },
      [=](caf::error&) { with_conversation(persist_user); });
}

// -- SAVE and RESPOND -------------------------------------------------------------

void do_save(session_pointer self) {
  auto& st = self->state;
  if (st.turn->user_saving) {
    // A failure before RUN ended: whether the user's words are in the
    // file (user_persisted) is known once their append answers.
    when_user_saved(self, [=] {
      if (self->state.turn && self->state.machine.state() == turn_state::save)
        do_save(self);
    });
    return;
  }
  // Once the turn is stored: the goal's next turn, if it goes on.
  auto saved = [=] {
    after_goal_turn(self, [=] { fire(self, turn_event::ok); });
  };
  auto msgs = std::move(st.turn->to_save);
  st.turn->to_save.clear();
  if (st.turn->budget_unfinalized
      && st.turn->stop_reason == turn_stop::max_iterations
      && goal_goes_on(self)) {
    // As the original: the limit's fallback text is dropped and nothing
    // is said; the continuation turn answers.
    if (!msgs.empty() && msgs.back().value("role", "") == "assistant"
        && !msgs.back().contains("tool_calls"))
      msgs.pop_back();
    st.turn->reply.clear();
    st.turn->quiet_end = true;
  }
  bool rewrite = !st.turn->injected_on_disk.empty();
  bool lost = rewrite && merge_injected(self, msgs);
  if (st.machine.failed() || st.turn->stop_reason == turn_stop::cancelled
      || lost) {
    // Keep the user's words even when the turn failed before BUILD saved
    // them, and close the turn so the transcript stays valid for replay
    // (a stopped turn keeps its partial work the same way).
    if (!st.turn->user_persisted && !st.turn->message.content.empty()
        && !parse_command(st.turn->message.content).is_command)
      msgs.insert(msgs.begin(), user_message(st.turn->message));
    auto tail = st.transcript;
    tail.insert(tail.end(), msgs.begin(), msgs.end());
    for (auto& fix : repair_tail(tail))
      msgs.push_back(std::move(fix));
  }
  if (!parse_command(st.turn->message.content).is_command)
    remember_route(self);
  if (msgs.empty()) {
    saved();
    return;
  }
  for (auto& m : msgs)
    if (!m.contains("timestamp"))
      m["timestamp"] = iso_now();
  if (rewrite) {
    // Injected messages are on disk already, before this turn's answers.
    save_rewritten(self, std::move(msgs), saved);
    return;
  }
  persist(self, std::move(msgs), "this turn", saved,
          st.turn->conversation_set ? &st.turn->conversation : nullptr);
}

void do_respond(session_pointer self) {
  auto& st = self->state;
  // The WebUI's run indicator: the model turn is over (before its
  // turn_end, which stays the turn's last event).
  goal_status_event(self, "idle");
  outbound_msg out;
  if (st.machine.failed()) {
    out = turn_final_reply(self,
                           "Sorry, something went wrong: " + st.turn->failure
                             + ". You can send your message again.",
                           true);
  } else if (st.turn->stop_reason == turn_stop::cancelled) {
    // Whoever sent /stop has their answer; callers still waiting for this
    // turn (API requests) hear that it ended. Chats without a waiting
    // caller already saw "Stopped".
    out = turn_final_reply(self, "Stopped before finishing.", false);
    for (auto& sink : st.turn->injected_sinks)
      if (sink != st.turn->stopped_by)
        self->send(sink, out);
    if (st.turn->message.reply_to
        && st.turn->message.reply_to != st.turn->stopped_by)
      deliver(self, std::move(out));
    fire(self, turn_event::ok);
    return;
  } else {
    out = turn_final_reply(self, st.turn->reply,
                           st.turn->stop_reason == turn_stop::error);
    // The message tool already put the answer in this chat (through the
    // outbox), or a goal's continuation turn answers: sending it would
    // repeat or say nothing. Nobody waiting: nothing goes out; the channel
    // manager waiting: only the turn's end marker (no text, as after a
    // streamed answer), so the chat knows the turn ended.
    bool quiet = st.turn->quiet_end
                 || (st.turn->delivered_by_tool
                     && st.turn->stop_reason != turn_stop::error);
    if (quiet && st.turn->injected_sinks.empty()) {
      // A continuation turn has no sink of its own: its chat still needs
      // the end marker, through the outbox.
      bool to_outbox = !st.turn->message.reply_to && st.turn->quiet_end;
      if (!st.turn->message.reply_to && !to_outbox) {
        fire(self, turn_event::ok);
        return;
      }
      if (to_outbox || st.turn->message.reply_to == st.svc.outbox) {
        out.content.clear();
        auto meta = json::parse(out.metadata_json, nullptr, false);
        if (!meta.is_object())
          meta = json::object();
        meta["streamed"] = true;
        if (st.turn->delivered_by_tool)
          meta["delivered_by_tool"] = true;
        out.metadata_json = meta.dump();
      }
    }
  }
  // Callers whose messages were injected into this turn wait for it too.
  for (auto& sink : st.turn->injected_sinks)
    self->send(sink, out);
  deliver(self, std::move(out));
  fire(self, turn_event::ok);
}

} // namespace

void enter_state(session_pointer self) {
  auto& st = self->state;
  if (st.log->should_log(spdlog::level::debug))
    st.log->debug("[{}] [T{}] enter {}", st.key, st.turn_number,
                  to_string(st.machine.state()));
  guarded(self, [&] {
    switch (st.machine.state()) {
      case turn_state::restore: do_restore(self); break;
      case turn_state::compact: do_compact(self); break;
      case turn_state::command: do_command(self); break;
      case turn_state::build: do_build(self); break;
      case turn_state::run: do_run(self); break;
      case turn_state::save: do_save(self); break;
      case turn_state::respond: do_respond(self); break;
      case turn_state::done: turn_finished(self); break;
    }
  });
}

void fire(session_pointer self, turn_event event) {
  auto& st = self->state;
  auto from = st.machine.state();
  if (!st.machine.fire(event, now_us())) {
    // A bug in a state's work: wind the turn down the way a failure does
    // (SAVE keeps the user's words and repairs the transcript, RESPOND
    // tells the user, DONE settles the inbox) rather than wedge the
    // session, or settle an inbox entry whose words were never saved.
    if (!st.turn || st.machine.done()) {
      // A late event after its turn ended: nothing left to end.
      st.log->error("[{}] [T{}] {}", st.key, st.turn_number,
                    st.machine.error());
      return;
    }
    fail(self, "internal error: " + st.machine.error());
    return;
  }
  if (st.log->should_log(spdlog::level::debug))
    st.log->debug("[{}] [T{}] {} --{}--> {} ({} us)", st.key, st.turn_number,
                  to_string(from), to_string(event),
                  to_string(st.machine.state()),
                  st.machine.trace().back().duration_us);
  enter_state(self);
}

void fail(session_pointer self, std::string what) {
  auto& st = self->state;
  self->state.log->error("[{}] [T{}] turn failed in {}: {}", st.key,
                             st.turn_number, to_string(st.machine.state()), what);
  if (st.machine.done() || !st.turn)
    return;
  if (st.turn->failure.empty())
    st.turn->failure = std::move(what);
  fire(self, turn_event::fail);
}

} // namespace nb

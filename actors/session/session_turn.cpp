// The work of each turn state. Every state ends by calling fire() (or fail()),
// which consults the pure transition table for what comes next.
#include "actors/session/session.hpp"

#include "actors/common/log.hpp"
#include "actors/runner/runner.hpp"
#include "actors/session/commands.hpp"
#include "actors/session/prompt.hpp"
#include "actors/session/transcript.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

std::string render(session_pointer self, const caf::error& err) {
  return self->system().render(err);
}

/// Runs `work`; an exception becomes a failure of the current state instead
/// of killing the actor (and with it every message queued for this chat).
template <class F>
void guarded(session_pointer self, F&& work) {
  try {
    work();
  } catch (const std::exception& e) {
    fail(self, std::string{"internal error: "} + e.what());
  }
}

std::vector<std::string> dump_all(const std::vector<json>& msgs) {
  std::vector<std::string> out;
  out.reserve(msgs.size());
  for (auto& m : msgs)
    out.push_back(m.dump());
  return out;
}

/// Appends `msgs` to the session file; `then` runs once they are durable.
template <class Then>
void persist(session_pointer self, std::vector<json> msgs, std::string what,
             Then then) {
  auto& st = self->state;
  self->request(st.svc.store, st.cfg.store_timeout,
                session_append{st.key, dump_all(msgs)})
    .then(
      [=](caf::ok_atom) mutable {
        auto& tr = self->state.transcript;
        tr.insert(tr.end(), msgs.begin(), msgs.end());
        guarded(self, then);
      },
      [=](caf::error& err) {
        fail(self, "could not save " + what + " (" + render(self, err) + ")");
      });
}

outbound_msg reply_msg(session_pointer self, std::string text, bool is_error) {
  auto& in = self->state.current;
  outbound_msg out;
  out.channel = in.channel;
  out.chat_id = in.chat_id;
  out.session_key = self->state.key;
  out.kind = outbound_kind::final_reply;
  out.content = std::move(text);
  out.is_error = is_error;
  out.stream_id = self->state.key + ":" + std::to_string(self->state.turn_number);
  json meta{{"streamed", self->state.streamed}};
  if (!self->state.stop_reason.empty())
    meta["stop_reason"] = self->state.stop_reason;
  out.metadata_json = meta.dump();
  return out;
}

json user_message(const inbound_msg& in) {
  json m{{"role", "user"}, {"content", in.content}, {"timestamp", iso_now()}};
  if (!in.media.empty())
    m["media"] = in.media;
  return m;
}

// -- RESTORE ------------------------------------------------------------------

void do_restore(session_pointer self) {
  auto& st = self->state;
  if (st.loaded) {
    fire(self, turn_event::ok);
    return;
  }
  self->request(st.svc.store, st.cfg.store_timeout, session_load{st.key})
    .then(
      [=](session_snapshot& snap) {
        guarded(self, [&] {
          auto& st = self->state;
          st.transcript = parse_messages(snap.messages);
          if (snap.skipped_lines > 0)
            self->state.log->warn("[{}] skipped {} corrupt line(s) in the "
                                      "session file", st.key, snap.skipped_lines);
          st.loaded = true;
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

// -- COMMAND ------------------------------------------------------------------

std::string status_text(session_pointer self) {
  auto& st = self->state;
  auto up = (now_us() - st.cfg.started_at_us) / 1000000;
  return "nanobot-cpp " NB_VERSION "\nModel: " + st.cfg.model
         + "\nSession: " + st.key + " — "
         + std::to_string(st.transcript.size()) + " messages\nUptime: "
         + std::to_string(up / 3600) + "h " + std::to_string(up / 60 % 60)
         + "m " + std::to_string(up % 60) + "s";
}

/// Answers a command and ends the turn (the `shortcut` transition).
void answer_command(session_pointer self, std::string text, bool persist_it) {
  auto& st = self->state;
  auto finish = [=] {
    deliver(self, reply_msg(self, text, false));
    fire(self, turn_event::shortcut);
  };
  if (!persist_it) {
    finish();
    return;
  }
  // Command exchanges are kept, marked so they are never replayed to the model.
  json user = user_message(st.current);
  user["_command"] = true;
  json answer{{"role", "assistant"}, {"content", text},
              {"timestamp", iso_now()}, {"_command", true}};
  persist(self, {user, answer}, "the command", finish);
}

void do_command(session_pointer self) {
  auto cmd = parse_command(self->state.current.content);
  switch (cmd.kind) {
    case command_kind::none:
      fire(self, turn_event::dispatch);
      return;
    case command_kind::help:
      answer_command(self, help_text(), true);
      return;
    case command_kind::status:
      answer_command(self, status_text(self), true);
      return;
    case command_kind::unknown:
      answer_command(self, unknown_command_text(cmd.name), true);
      return;
    case command_kind::new_session: {
      auto& st = self->state;
      session_replace fresh{st.key, json{{"cleared_at", iso_now()}}.dump(), {}};
      self->request(st.svc.store, st.cfg.store_timeout, std::move(fresh))
        .then(
          [=](caf::ok_atom) {
            self->state.transcript.clear();
            answer_command(self, "New session started.", false);
          },
          [=](caf::error& err) {
            fail(self, "could not start a new session (" + render(self, err) + ")");
          });
      return;
    }
  }
}

// -- BUILD and RUN --------------------------------------------------------------

json model_messages(session_pointer self) {
  auto& st = self->state;
  json msgs = json::array();
  msgs.push_back({{"role", "system"}, {"content", st.prompt.get(st.cfg.workspace)}});
  // The transcript already ends with this turn's user message.
  auto history = replay_history(st.transcript, st.cfg.replay_limit);
  for (auto& m : history)
    msgs.push_back(std::move(m));
  auto& last = msgs.back();
  if (last.value("role", "") == "user" && last["content"].is_string())
    last["content"] = last["content"].get<std::string>()
                      + runtime_context(st.current.channel, st.current.chat_id,
                                        st.current.sender_id);
  return msgs;
}

void do_build(session_pointer self) {
  // The user's message is on disk before the model is called.
  persist(self, {user_message(self->state.current)}, "your message", [=] {
    self->state.user_persisted = true;
    fire(self, turn_event::ok);
  });
}

void do_run(session_pointer self) {
  auto& st = self->state;
  auto runner = self->spawn(runner_impl, st.svc.provider, st.svc.tools,
                            st.svc.stats, st.cfg.model_timeout,
                            st.cfg.tool_timeout,
                            int64_t{st.cfg.context_window_tokens});
  run_turn rq;
  rq.session_key = st.key;
  rq.channel = st.current.channel;
  rq.chat_id = st.current.chat_id;
  rq.turn_id = st.key + ":" + std::to_string(st.turn_number);
  rq.model = st.cfg.model;
  rq.messages_json = model_messages(self).dump();
  rq.max_iterations = st.cfg.max_iterations;
  rq.max_tokens = st.cfg.max_tokens;
  rq.temperature = st.cfg.temperature;
  rq.stream = st.current.wants_stream;
  rq.stream_to = st.current.reply_to;
  auto limit = st.cfg.model_timeout * (st.cfg.max_iterations + 2)
               + st.cfg.tool_timeout * st.cfg.max_iterations;
  self->request(runner, limit, std::move(rq))
    .then(
      [=](turn_outcome& out) {
        guarded(self, [&] {
          auto& st = self->state;
          st.to_save = parse_messages(out.new_messages);
          st.reply = std::move(out.final_content);
          st.stop_reason = std::move(out.stop_reason);
          st.streamed = out.streamed;
          fire(self, turn_event::ok);
        });
      },
      [=](caf::error& err) {
        fail(self, "the model loop stopped unexpectedly (" + render(self, err) + ")");
      });
}

// -- SAVE and RESPOND -------------------------------------------------------------

void do_save(session_pointer self) {
  auto& st = self->state;
  auto msgs = std::move(st.to_save);
  st.to_save.clear();
  if (st.machine.failed()) {
    // Keep the user's words even when the turn failed before BUILD saved
    // them, and close the turn so the transcript stays valid for replay.
    if (!st.user_persisted && !st.current.content.empty()
        && parse_command(st.current.content).kind == command_kind::none)
      msgs.insert(msgs.begin(), user_message(st.current));
    auto tail = st.transcript;
    tail.insert(tail.end(), msgs.begin(), msgs.end());
    for (auto& fix : repair_tail(tail))
      msgs.push_back(std::move(fix));
  }
  if (msgs.empty()) {
    fire(self, turn_event::ok);
    return;
  }
  for (auto& m : msgs)
    if (!m.contains("timestamp"))
      m["timestamp"] = iso_now();
  persist(self, std::move(msgs), "this turn", [=] { fire(self, turn_event::ok); });
}

void do_respond(session_pointer self) {
  auto& st = self->state;
  if (st.machine.failed()) {
    deliver(self, reply_msg(self, "Sorry, something went wrong: " + st.failure
                                    + ". You can send your message again.",
                            true));
  } else {
    bool is_error = st.stop_reason == "error";
    deliver(self, reply_msg(self, st.reply, is_error));
  }
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
      case turn_state::compact: fire(self, turn_event::ok); break;
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
    // A bug in a state's work: end the turn rather than wedge the session.
    self->state.log->error("[{}] [T{}] {}", st.key, st.turn_number,
                               st.machine.error());
    deliver(self, reply_msg(self, "Sorry, something went wrong inside the "
                                  "agent. You can send your message again.",
                            true));
    st.machine.start(now_us());
    st.machine.fire(turn_event::fail, now_us());
    turn_finished(self);
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
  if (st.machine.done())
    return;
  if (st.failure.empty())
    st.failure = std::move(what);
  fire(self, turn_event::fail);
}

} // namespace nb

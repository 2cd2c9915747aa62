// The turn's user message is appended to the session file while the model is
// already being asked: the inbox journal holds the message durably meanwhile,
// so a crash before the append is durable re-delivers it and the model is
// simply asked again. What cannot be taken back waits for the append: the
// inbox settle, every tool call (the runner holds them: a replayed turn would
// run them a second time), the end of RUN and SAVE (the turn's messages
// follow the user's in the file), and so RESPOND.
#include "actors/session/session.hpp"
#include "actors/session/session_steps.hpp"

namespace nb {

namespace {

/// The append's outcome (`err` none: durable).
void user_saved(session_pointer self, int turn, const caf::error& err) {
  auto& st = self->state;
  // The turn cannot end before this (SAVE waits), but a stray answer must
  // not touch another turn.
  if (!st.turn || st.turn_number != turn || !st.turn->user_saving)
    return;
  auto& t = *st.turn;
  t.user_saving = false;
  if (!err) {
    t.user_persisted = true;
    settle_inbox(self, t.message);
    if (t.runner)
      self->send(t.runner, user_saved_atom::value);
  } else {
    t.user_save_error = "could not save your message (" + render(self, err) + ")";
    st.log->error("[{}] [T{}] {}", st.key, st.turn_number, t.user_save_error);
    // Not in the file: not in the transcript either (SAVE puts it back
    // with the turn's close, as after any failure before the append).
    auto& tr = st.transcript;
    if (t.user_at < tr.size())
      tr.erase(tr.begin() + static_cast<std::ptrdiff_t>(t.user_at));
    // An answer to a message that is not kept is not kept either: the
    // model call stops now (held tool calls never run).
    if (t.runner)
      self->send(t.runner, cancel_turn_atom::value);
  }
  auto waiting = std::move(t.after_user_saved);
  t.after_user_saved.clear();
  for (auto& then : waiting)
    guarded(self, then);
}

} // namespace

void save_user_message(session_pointer self) {
  auto& st = self->state;
  auto msg = user_message(st.turn->message);
  session_append rq;
  rq.key = st.key;
  rq.messages.push_back(msg.dump());
  st.turn->user_saving = true;
  st.turn->user_at = st.transcript.size();
  st.transcript.emplace_back(std::move(msg));
  auto turn = st.turn_number;
  timed_request(self, st.svc.store, st.cfg.store_timeout, std::move(rq))
    .then([=](caf::ok_atom) { user_saved(self, turn, caf::none); },
          [=](caf::error& err) { user_saved(self, turn, err); });
}

void when_user_saved(session_pointer self, std::function<void()> then) {
  auto& st = self->state;
  if (st.turn && st.turn->user_saving) {
    st.turn->after_user_saved.push_back(std::move(then));
    return;
  }
  then();
}

} // namespace nb

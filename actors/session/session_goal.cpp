// Sustained goals in the session: the session owns the goal state (in its
// file's metadata, "goal_state", the original's shape), runs the goal
// tools' calls the runner hands it and tells it, at each final answer,
// whether (and with what message) the goal goes on within the turn. When
// a turn runs out of iterations with the goal still active, its end
// schedules an internal continuation turn that enters like any other
// message (journaled in the durable inbox when there is one), so one turn
// at a time per chat still holds and a crash loses none. Bounded by
// goal::max_rounds per goal; never after a refusal; /stop, /new and the
// goal's end stop it.
#include <chrono>

#include "actors/common/iso_time.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/goal_state.hpp"
#include "actors/session/session.hpp"
#include "actors/session/session_steps.hpp"
#include "messages/inbox.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

constexpr const char* continuation_meta = "_goal_continuation";

/// Epoch seconds with a fraction, as the original's started_at.
double goal_epoch_seconds() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch())
           .count()
         / 1e6;
}

/// Only the WebSocket channel (the WebUI) shows goal events.
bool shows_goal_events(const inbound_msg& chat) {
  return chat.channel == "websocket";
}

/// A goal event: a progress message without text, marked with the
/// original's metadata flags ("_goal_state_sync", "_goal_status"); the
/// channel manager passes it to the WebSocket channel only. To `chat`'s
/// reply sink, or the outbox.
void send_goal_status_msg(session_pointer self, const inbound_msg& chat,
                          json meta) {
  auto& st = self->state;
  outbound_msg out;
  out.channel = chat.channel;
  out.chat_id = chat.chat_id;
  out.session_key = st.key;
  out.kind = outbound_kind::progress;
  meta["_tool_hint"] = false;
  out.stream_id = st.key + ":" + std::to_string(st.turn_number);
  out.metadata_json = meta.dump(-1, ' ', false, json::error_handler_t::replace);
  deliver_to(self, chat, std::move(out));
}

/// The goal changed: the WebUI's goal strip in `chat` follows (goal_state
/// event).
void goal_state_event(session_pointer self, const inbound_msg& chat) {
  if (!shows_goal_events(chat))
    return;
  send_goal_status_msg(self, chat,
                       {{"_goal_state_sync", true},
                        {"goal_state", goal::ws_blob(self->state.file_meta)}});
}

/// Where this turn's answers go: a chat channel (through the channel
/// manager), not a caller waiting for one reply (the API, the terminal).
/// Only those turns continue, as in the original (its direct calls have
/// no queue to continue in).
bool answers_in_chat(const session_state& st) {
  return !st.turn->message.reply_to
         || st.turn->message.reply_to == st.svc.outbox;
}

json continuation_marker(const inbound_msg& in) {
  if (in.metadata_json.find(continuation_meta) == std::string::npos)
    return nullptr;
  auto meta = json::parse(in.metadata_json, nullptr, false);
  if (!meta.is_object() || !meta.contains(continuation_meta)
      || !meta[continuation_meta].is_object())
    return nullptr;
  return meta[continuation_meta];
}

/// The continuation turn after the current one: same chat and routing,
/// the original's internal-continuation markers, a dedup key of its own.
inbound_msg continuation_msg(session_pointer self, int round) {
  auto& st = self->state;
  inbound_msg in;
  in.channel = st.turn->message.channel;
  in.chat_id = st.turn->message.chat_id;
  in.sender_id = "system:continuation";
  in.session_key_override = st.turn->message.session_key_override;
  in.wants_stream = st.turn->message.wants_stream;
  in.content = goal::continuation_prompt(st.file_meta);
  auto meta = json::parse(st.turn->message.metadata_json, nullptr, false);
  if (!meta.is_object())
    meta = json::object();
  for (const char* k : {"goal_requested", "original_command", "_message_id",
                        "_replayed", "_inbox_was", "_cron_trigger"})
    meta.erase(k);
  meta["_internal_continuation"] = true;
  meta["_internal_continuation_kind"] = "sustained_goal";
  meta[continuation_meta] = {{"round", round}, {"epoch", st.goal_epoch}};
  meta["_message_id"] = "goal:" + st.key + ":" + std::to_string(round) + ":"
                        + std::to_string(now_us());
  in.metadata_json = meta.dump(-1, ' ', false, json::error_handler_t::replace);
  return in;
}

/// Hands the continuation to the inbox (journaled, then routed) or, without
/// one, to the router; `then` runs once it is on its way.
void send_continuation(session_pointer self, inbound_msg in,
                       std::function<void()> then) {
  auto& st = self->state;
  st.continuation_queued = true;
  if (!st.svc.inbox) {
    self->send(st.router, std::move(in));
    then();
    return;
  }
  auto inbox = caf::actor_cast<inbox_actor>(st.svc.inbox);
  timed_request(self, inbox, st.cfg.store_timeout, inbox_record{std::move(in)})
    .then([=](inbox_receipt&) { guarded(self, then); },
          [=](caf::error& err) {
            auto& st = self->state;
            st.continuation_queued = false;
            st.log->warn("[{}] the goal's continuation could not be queued: "
                         "{}",
                         st.key, render(self, err));
            guarded(self, then);
          });
}

/// Merges `patch` into the file's metadata line; `done(ok)` after.
void patch_goal_meta(session_pointer self, json patch,
                     std::function<void(bool)> done) {
  auto& st = self->state;
  auto store = caf::actor_cast<store_admin_actor>(st.svc.store);
  timed_request(self, store, st.cfg.store_timeout,
                session_patch{st.key, patch.dump()})
    .then([=](caf::ok_atom) { done(true); },
          [=](caf::error& err) {
            self->state.log->warn("[{}] could not save the goal state: {}",
                                  self->state.key, render(self, err));
            done(false);
          });
}

} // namespace

caf::result<tool_result> goal_call(session_pointer self, goal_tool_call& g) {
  auto& st = self->state;
  tool_result r{g.call.id, g.call.name, "", false, now_us(), 0};
  auto allowed = st.turn && st.turn->goal_permission && !st.machine.done();
  // Told of the change when its patch is stored: the turn's chat, or if
  // the turn ended meanwhile that chat through the outbox.
  inbound_msg chat;
  if (st.turn) {
    chat.channel = st.turn->message.channel;
    chat.chat_id = st.turn->message.chat_id;
  }
  auto ch = goal::apply(g.call.name, g.call.arguments_json, st.file_meta,
                        allowed, iso_now());
  r.content = ch.text + (ch.is_error ? tool_error_hint : "");
  r.is_error = ch.is_error;
  if (ch.patch.is_null()) {
    r.finished_us = now_us();
    return r;
  }
  // In memory at once, so a rewrite of the file while the patch is under
  // way (a stopped turn's SAVE) carries it too; undone if it fails.
  auto before = st.file_meta;
  st.file_meta.merge_patch(ch.patch);
  auto rp = self->make_response_promise<tool_result>();
  patch_goal_meta(self, ch.patch, [=](bool ok) mutable {
    auto& st = self->state;
    r.finished_us = now_us();
    if (!ok) {
      st.file_meta = before;
      r.content =
        std::string{"Error: the goal could not be saved."} + tool_error_hint;
      r.is_error = true;
      rp.deliver(std::move(r));
      return;
    }
    if (ch.revoke && st.turn)
      st.turn->goal_permission = false;
    auto now = goal::parse_state(st.file_meta);
    st.log->info("[{}] goal: {} -> {}", st.key, g.call.name,
                 now.is_object() ? now.value("status", json()).dump() : "?");
    goal_state_event(self, st.turn ? st.turn->message : chat);
    rp.deliver(std::move(r));
  });
  return rp;
}

std::string goal_continue_text(session_pointer self) {
  // A /stop or /new since the turn began ended what it was working on.
  auto& st = self->state;
  if (!st.turn || st.machine.done())
    return {};
  return goal::in_turn_prompt(st.file_meta);
}

void goal_status_event(session_pointer self, const char* status) {
  auto& turn = self->state.turn;
  if (!turn || !shows_goal_events(turn->message))
    return;
  json meta{{"_goal_status", true}, {"goal_status", status}};
  if (std::string_view{status} == "running")
    meta["started_at"] = goal_epoch_seconds();
  send_goal_status_msg(self, turn->message, std::move(meta));
}

namespace {

/// Whether this turn may be followed by a continuation turn: a goal active
/// or being started, rounds left, a chat to answer in.
bool continuation_possible(session_pointer self) {
  auto& st = self->state;
  return (st.turn->goal_requested || goal::active(st.file_meta))
         && goal::rounds(st.file_meta) < goal::max_rounds && answers_in_chat(st)
         && !st.cfg.temporary;
}

} // namespace

bool sustained_goal_turn(session_pointer self) {
  auto& st = self->state;
  return st.turn->goal_requested || goal::active(st.file_meta);
}

bool goal_continues_at_limit(session_pointer self) {
  auto& st = self->state;
  return goal::active(st.file_meta) && !st.continuation_queued
         && !(st.draining && !st.svc.inbox) && continuation_possible(self);
}

bool goal_goes_on(session_pointer self) {
  auto& st = self->state;
  if (!goal::active(st.file_meta))
    return false;
  // A final answer with the goal active goes on within the turn (the
  // runner's continuation): only a turn cut at its iteration limit needs
  // another, as in the original.
  bool ended_well = !st.machine.failed()
                    && st.turn->stop_reason == turn_stop::max_iterations
                    && st.turn->finish_reason == answer_finish::normal;
  // Stopping (a drain): the inbox keeps it for the next start; without
  // one it would be lost in the queue.
  return ended_well && !st.continuation_queued
         && !(st.draining && !st.svc.inbox) && continuation_possible(self);
}

void after_goal_turn(session_pointer self, std::function<void()> then) {
  auto& st = self->state;
  if (!goal::active(st.file_meta)) {
    // The goal ended (or there is none): its round count goes.
    if (st.file_meta.contains(goal::rounds_key)) {
      json patch{{goal::rounds_key, nullptr}};
      st.file_meta.merge_patch(patch);
      patch_goal_meta(self, patch, [=](bool) { then(); });
      return;
    }
    then();
    return;
  }
  if (!goal_goes_on(self)) {
    then();
    return;
  }
  int round = goal::rounds(st.file_meta) + 1;
  json patch{{goal::rounds_key, round}};
  st.file_meta.merge_patch(patch);
  st.log->info("[{}] goal still active: continuation {} of {}", st.key, round,
               goal::max_rounds);
  // The count is on disk before the turn is queued: a crash never gives a
  // goal more rounds than its limit.
  patch_goal_meta(self, patch, [=](bool ok) {
    if (!ok) {
      then();
      return;
    }
    send_continuation(self, continuation_msg(self, round), then);
  });
}

bool is_goal_continuation(const inbound_msg& in) {
  return !continuation_marker(in).is_null();
}

bool drop_void_continuation(session_pointer self) {
  auto& st = self->state;
  auto marker = continuation_marker(st.turn->message);
  if (marker.is_null())
    return false;
  st.continuation_queued = false;
  // The epoch counts /stop and /new of this actor's life: one replayed
  // after a restart was queued in an earlier one and is still wanted.
  auto meta = json::parse(st.turn->message.metadata_json, nullptr, false);
  bool replayed = meta.is_object() && meta.value("_replayed", false) == true;
  auto epoch = marker.value("epoch", -1);
  if ((replayed || epoch == st.goal_epoch) && goal::active(st.file_meta))
    return false;
  st.log->info("[{}] goal continuation {} dropped ({})", st.key,
               marker.value("round", 0),
               epoch != st.goal_epoch ? "stopped" : "the goal ended");
  return true;
}

void void_continuations(session_pointer self) {
  auto& st = self->state;
  ++st.goal_epoch;
  st.continuation_queued = false;
  for (auto i = st.pending.begin(); i != st.pending.end();) {
    if (is_goal_continuation(*i)) {
      settle_inbox(self, *i);
      i = st.pending.erase(i);
    } else {
      ++i;
    }
  }
}

std::string goal_context_lines(session_pointer self) {
  std::string out;
  for (auto& line : goal::runtime_lines(self->state.file_meta))
    out += "\n" + line;
  return out;
}

std::string goal_guidance(session_pointer self) {
  auto& st = self->state;
  return goal::guidance(st.turn->goal_requested, goal::active(st.file_meta));
}

} // namespace nb

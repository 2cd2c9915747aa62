// Durable mid-turn injections: a message injected into the running turn is
// appended to the session file before the runner sees it, so a crash
// mid-turn keeps it; SAVE then rewrites the file in the transcript's order.
#include "actors/session/session.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/session_steps.hpp"

#include "actors/session/transcript.hpp"

namespace nb {

using json = nlohmann::json;

caf::result<std::vector<inbound_msg>> hand_out_injections(session_pointer self) {
  auto& st = self->state;
  auto msgs = take_injections(self);
  if (msgs.empty() || !st.svc.store)
    return msgs;
  std::vector<json> users;
  for (auto& in : msgs)
    users.push_back(user_message(in));
  for (auto& in : msgs)
    if (!in.inbox_id.empty())
      st.turn->injected_inbox_ids.push_back(in.inbox_id);
  auto rp = self->make_response_promise<std::vector<inbound_msg>>();
  auto turn_no = st.turn_number;
  timed_request(self, st.svc.store, st.cfg.store_timeout,
                session_append{st.key, dump_all(users)})
    .then(
      [=](caf::ok_atom) mutable {
        auto& st = self->state;
        if (st.turn && st.turn_number == turn_no && !st.machine.done())
          st.turn->injected_on_disk.insert(st.turn->injected_on_disk.end(),
                                           users.begin(), users.end());
        else // late: the runner gave up and the turn was saved without them
          st.transcript.insert(st.transcript.end(), users.begin(), users.end());
        for (auto& in : msgs)
          settle_inbox(self, in);
        rp.deliver(std::move(msgs));
      },
      [=](caf::error& err) mutable {
        // Not on disk yet: they are saved with the turn at SAVE, as before.
        self->state.log->warn("[{}] could not save injected message(s) "
                              "early: {}", self->state.key,
                              render(self, err));
        rp.deliver(std::move(msgs));
      });
  return rp;
}

bool merge_injected(session_pointer self, std::vector<json>& msgs) {
  auto& inj = self->state.turn->injected_on_disk;
  size_t k = 0;
  // The runner's copies carry only role and content; the saved ones (with
  // their timestamp and media) take their places, in the runner's order.
  for (auto& m : msgs) {
    if (k == inj.size())
      break;
    if (m.value("role", "") == "user" && m.contains("content")
        && m["content"] == inj[k]["content"])
      m = inj[k++];
  }
  // The runner's output is lost (a failed turn): they stay, at the end.
  bool lost = k < inj.size();
  for (; k < inj.size(); ++k)
    msgs.push_back(inj[k]);
  return lost;
}

void save_rewritten(session_pointer self, std::vector<json> msgs,
                    std::function<void()> then) {
  auto& st = self->state;
  auto all = st.transcript;
  all.insert(all.end(), msgs.begin(), msgs.end());
  // The metadata as loaded and merged since (archive mark, model preset).
  session_replace rq{st.key, st.file_meta.dump(), dump_all(all)};
  rq.keep = st.base; // the archived messages dropped from memory
  if (st.turn && st.turn->conversation_set) {
    rq.conversation_set = true;
    rq.conversation = st.turn->conversation;
    st.has_conversation = rq.conversation.record != nullptr;
  }
  timed_request(self, st.svc.store, st.cfg.store_timeout, std::move(rq))
    .then(
      [=](caf::ok_atom) mutable {
        auto& st = self->state;
        st.transcript = std::move(all);
        if (st.turn)
          st.turn->injected_on_disk.clear();
        guarded(self, then);
      },
      [=](caf::error& err) {
        fail(self, "could not save this turn (" + render(self, err) + ")");
      });
}

} // namespace nb

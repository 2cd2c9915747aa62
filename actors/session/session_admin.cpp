// The WebUI's changes to a live session (issue 20, part 3). The session
// owns its file and keeps the file's metadata in memory (file_meta) for
// its own rewrites, so a rename made behind its back would be undone by
// its next write: the router hands such changes to it instead, and it
// applies them between turns.
#include "actors/session/session.hpp"

#include "actors/common/timed_request.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

store_admin_actor admin_store(session_pointer self) {
  return caf::actor_cast<store_admin_actor>(self->state.svc.store);
}

/// Forgets the conversation as /new does, but archives nothing: the user
/// asked for it to be gone, not remembered.
void forget_conversation(session_pointer self) {
  auto& st = self->state;
  ++st.generation; // an archive reply still out no longer moves the mark
  st.archiving = false;
  st.file_meta = json::object();
  st.transcript.clear();
  st.base = 0;
  st.earlier_usage = json::object();
  st.last_usage = token_usage{};
  st.last_turn_sum = token_usage{};
  st.archived = 0;
  st.summary.clear();
  st.summary_at.clear();
  st.meta_dirty = false;
  st.turn_number = 0;
}

} // namespace

void remember_route(session_pointer self) {
  auto& st = self->state;
  const auto& in = st.turn->message;
  if (!st.cfg.unified_session || st.key != unified_session_key
      || in.channel.empty() || in.chat_id.empty() || in.channel == "cli"
      || in.channel == "system")
    return;
  auto route = in.channel + ":" + in.chat_id;
  auto known = st.file_meta.find("last_channel");
  if (known != st.file_meta.end() && *known == route)
    return;
  json patch{{"last_channel", route}};
  st.file_meta.merge_patch(patch);
  // Only when the chat changes: a metadata patch rewrites the file's head.
  timed_request(self, admin_store(self), st.cfg.store_timeout,
                session_patch{st.key, patch.dump()})
    .then([](caf::ok_atom) {},
          [=](caf::error& err) {
            self->state.log->warn("[{}] could not record the last chat: {}",
                                  self->state.key, self->system().render(err));
          });
}

nlohmann::json admin_meta_patch(const session_admin& a) {
  if (a.op == "rename")
    return {{"title", a.title.empty() ? json() : json(a.title)}};
  if (a.op == "archive")
    return {{"archived", true}};
  if (a.op == "unarchive")
    return {{"archived", nullptr}};
  return nullptr;
}

caf::result<caf::ok_atom> apply_admin(session_pointer self, session_admin& a) {
  auto& st = self->state;
  auto store = admin_store(self);
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto answer = [rp](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); };
  auto failed = [rp](caf::error& err) mutable { rp.deliver(std::move(err)); };
  if (a.op == "delete") {
    // Cleared before the file goes: a message arriving next appends to a
    // new file after the removal (one store worker per key keeps order).
    forget_conversation(self);
    timed_request(self, store, st.cfg.store_timeout, session_remove{st.key})
      .then(answer, failed);
    st.log->info("[{}] deleted from the WebUI", st.key);
    return rp;
  }
  auto patch = admin_meta_patch(a);
  if (patch.is_null())
    return caf::make_error(errc::invalid_arguments,
                           "unknown session change '" + a.op + "'");
  st.file_meta.merge_patch(patch);
  timed_request(self, store, st.cfg.store_timeout,
                session_patch{st.key, patch.dump()})
    .then(answer, failed);
  return rp;
}

} // namespace nb

// The session's side of the durable inbox: settling entries once their
// message is stored, and recognising a re-delivery it had stored already.
#include "actors/session/session.hpp"

namespace nb {

void settle_inbox(session_pointer self, const inbound_msg& in) {
  auto& st = self->state;
  if (!in.inbox_id.empty() && st.svc.inbox)
    self->send(st.svc.inbox, inbox_settle{in.inbox_id});
}

bool already_stored(session_pointer self, const inbound_msg& in) {
  // Only re-deliveries can be in the transcript already; the inbox marks
  // them (cheap test first, then the metadata).
  if (in.inbox_id.empty()
      || in.metadata_json.find("\"_replayed\"") == std::string::npos)
    return false;
  auto meta = nlohmann::json::parse(in.metadata_json, nullptr, false);
  if (!meta.is_object() || meta.value("_replayed", false) != true)
    return false;
  // A message another gateway journaled was taken over under a new id;
  // what it stored carries the old one.
  std::string was;
  if (auto w = meta.find("_inbox_was"); w != meta.end() && w->is_string())
    was = w->get<std::string>();
  auto& tr = self->state.transcript;
  for (auto i = tr.rbegin(); i != tr.rend(); ++i) {
    const auto& m = i->message();
    auto f = m.find("_inbox");
    if (f != m.end() && f->is_string()
        && (*f == in.inbox_id || (!was.empty() && *f == was)))
      return true;
  }
  return false;
}

} // namespace nb

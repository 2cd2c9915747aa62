// The session's window on its transcript: a chat that runs for months must
// not hold every message it ever had. Messages the archive has summarised
// are dropped from memory (the file keeps them) once the replay can no
// longer reach them; `base` counts them, so indices into the file stay
// what they were. Rewrites of the file keep them on disk (session_replace
// with keep = base), and /stats keeps their recorded usage.
#include "actors/session/archive.hpp"
#include "actors/session/session.hpp"
#include "actors/session/transcript.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// The most messages /history shows: they stay in memory.
constexpr size_t history_window = 50;

/// Dropping moves the remaining messages (a json is 16 bytes to move), so
/// it waits for a small batch. Small, because every session holds up to
/// history_window + forget_batch messages: at 64 the soak's 53 chats held
/// ~114 each at the peak, and the heap kept filling for 20 minutes.
constexpr size_t forget_batch = 16;

/// Adds the usage an assistant message recorded to `totals` (by model).
void fold_usage(json& totals, const transcript_entry& m) {
  auto [model, u] = recorded_usage_of(m);
  if (!u.is_object())
    return;
  auto& t = totals[model];
  if (!t.is_object())
    t = json::object();
  auto add = [&](const char* key, int64_t v) {
    t[key] = t.value(key, int64_t{0}) + v;
  };
  add("turns", 1);
  for (const char* key : {"requests", "prompt_tokens", "completion_tokens",
                          "cached_tokens"}) {
    auto f = u.find(key);
    if (f != u.end() && f->is_number_integer())
      add(key, f->get<int64_t>());
  }
}

} // namespace

size_t message_count(const session_state& st) {
  return st.base + st.transcript.size();
}

void forget_archived(session_pointer self) {
  auto& st = self->state;
  if (!st.machine.done() || st.archived <= st.base)
    return;
  auto& tr = st.transcript;
  // Where the next replay may start (it reaches back before the archive
  // mark to a user message), and the last messages /history shows.
  auto keep_from = replay_start(tr, st.archived - st.base);
  if (tr.size() > history_window)
    keep_from = std::min(keep_from, tr.size() - history_window);
  else
    keep_from = 0;
  if (keep_from < forget_batch)
    return;
  for (size_t i = 0; i < keep_from; ++i)
    fold_usage(st.earlier_usage, tr[i]);
  tr.erase(tr.begin(), tr.begin() + static_cast<std::ptrdiff_t>(keep_from));
  tr.shrink_to_fit();
  st.base += keep_from;
  st.log->debug("[{}] {} archived message(s) no longer held in memory ({} "
                "held)", st.key, st.base, tr.size());
}

} // namespace nb

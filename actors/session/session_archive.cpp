// The session side of archiving: the COMPACT state and the idle tick decide
// what to archive, a detached worker writes it (archive_worker.cpp), and the
// session then moves its archive mark and records it in the session file's
// metadata line, between turns.
#include "actors/session/session.hpp"

#include <algorithm>

#include <caf/event_based_actor.hpp>
#include <caf/spawn_options.hpp>

#include "actors/common/iso_time.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/runner/context_governor.hpp"
#include "actors/session/archive.hpp"
#include "actors/session/archive_worker.hpp"
#include "actors/session/session_steps.hpp"
#include "actors/session/transcript.hpp"
#include "actors/common/blocking_task.hpp"
#include "actors/common/guard.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// Metadata keys this file owns in the session file's metadata object.
constexpr const char* mark_key = "last_consolidated";
constexpr const char* summary_key = "_last_summary";

bool has_unarchived(session_pointer self) {
  auto& st = self->state;
  return st.svc.provider && !st.cfg.temporary
         && message_count(st) > st.archived;
}

} // namespace

void load_memory_meta(session_pointer self, const std::string& metadata_json) {
  auto& st = self->state;
  auto meta = json::parse(metadata_json, nullptr, false);
  if (!meta.is_object())
    return;
  st.file_meta = meta;
  // A mark past the end (a file edited by hand) counts as nothing archived.
  if (meta.value(mark_key, json()).is_number_unsigned()
      && meta[mark_key].get<size_t>() <= st.transcript.size())
    st.archived = meta[mark_key].get<size_t>();
  auto s = meta.value(summary_key, json());
  if (s.is_object() && s.value("text", json()).is_string()) {
    st.summary = s["text"].get<std::string>();
    st.summary_at = s.value("last_active", std::string{});
  }
}

void write_memory_meta(session_pointer self) {
  auto& st = self->state;
  if (!st.meta_dirty || st.meta_writing)
    return;
  st.file_meta[mark_key] = st.archived;
  if (!st.summary.empty())
    st.file_meta[summary_key] = {{"text", st.summary},
                                 {"last_active", st.summary_at}};
  session_replace rq{st.key, st.file_meta.dump(), {}};
  if (st.meta_rewrite_held) {
    rq.keep = st.base; // dropped from memory, still in the file
    rq.messages = dump_all(st.transcript);
  } else {
    // Only the metadata line changes: the messages held are the file's own
    // (each got there by an append or a rewrite), so the store keeps them
    // all as they are instead of a long chat's being written out again.
    rq.keep = message_count(st);
  }
  // Archived turns live on in the summary, not in a provider's saved
  // items: the state goes, as the original drops it when it consolidates.
  rq.conversation_set = true;
  st.has_conversation = false;
  st.meta_dirty = false;
  st.meta_writing = true;
  timed_request(self, st.svc.store, st.cfg.store_timeout, std::move(rq))
    .then(
          [=](caf::ok_atom) {
            self->state.meta_writing = false;
            self->state.meta_rewrite_held = false;
          },
          [=](caf::error& err) {
            self->state.meta_writing = false;
            self->state.meta_dirty = true;
            self->state.meta_rewrite_held = true;
            self->state.log->warn("[{}] could not record the archive mark: {}",
                                  self->state.key, self->system().render(err));
          });
}

void background_done(session_pointer self) {
  auto& st = self->state;
  if (st.background > 0 && --st.background == 0) {
    for (auto& rp : st.flush_waiters)
      rp.deliver(true);
    st.flush_waiters.clear();
  }
}

void archive_range(session_pointer self, size_t from, size_t upto) {
  auto& st = self->state;
  // The one door into memory (history.jsonl, then Dream's MEMORY.md): a
  // temporary chat never passes it, so it is never consolidated; its replay
  // is only ever trimmed by the context governor.
  if (upto <= from || !st.svc.provider || st.cfg.temporary)
    return;
  // Ranges start at the archive mark, never before what is held.
  from = std::max(from, st.base);
  auto formatted = format_for_archive(st.transcript, from - st.base,
                                      upto - st.base);
  if (formatted.empty()) {
    // Only command exchanges: nothing to summarise, only the mark moves.
    st.archived = std::max(st.archived, upto);
    st.meta_dirty = true;
    if (st.machine.done())
      write_memory_meta(self);
    return;
  }
  archive_job job;
  job.provider = st.svc.provider;
  job.model = st.model; // the chat's preset (/model) summarises too
  job.provider_name = st.runtime.provider;
  job.timeout = st.cfg.model_timeout;
  job.workspace = st.cfg.workspace;
  job.files = st.svc.workspace;
  job.session_key = st.key;
  job.formatted = std::move(formatted);
  job.count = upto - from;
  st.archiving = true;
  st.archiving_upto = upto;
  ++st.background;
  auto generation = st.generation;
  auto worker =
    spawn_blocking_child<caf::linked>(self, archive_worker, std::move(job));
  timed_request(self, worker, st.cfg.model_timeout + std::chrono::seconds(60),
                caf::get_atom::value)
    .then(
      guard("session", [=](bool raw, std::string& entry) {
        auto& st = self->state;
        background_done(self);
        st.log->info("[{}] archived messages {}..{}{}", st.key, from, upto,
                     raw ? " raw (the summary call failed)" : "");
        // After /new the range belongs to the cleared conversation: it is
        // in the history log, but this session's mark starts over.
        if (generation != st.generation)
          return;
        st.archiving = false;
        st.archived = std::max(st.archived, upto);
        if (!raw && entry != nothing_to_archive) {
          st.summary = entry;
          st.summary_at = history_timestamp();
        }
        st.meta_dirty = true;
        if (st.machine.done()) {
          forget_archived(self); // before the rewrite: see turn_finished
          write_memory_meta(self);
        }
      }),
      [=](caf::error& err) {
        auto& st = self->state;
        background_done(self);
        if (generation == st.generation)
          st.archiving = false;
        st.log->error("[{}] archiving failed, will retry: {}", st.key,
                      self->system().render(err));
      });
}

void do_compact(session_pointer self) {
  auto& st = self->state;
  // Between turns nothing else writes the file: record the last mark now.
  write_memory_meta(self);
  auto n = message_count(st);
  if (st.archiving || n <= st.archived) {
    fire(self, turn_event::ok);
    return;
  }
  // Idle for long enough (also across a restart: the file's timestamps
  // tell): archive everything not archived yet.
  if (st.cfg.idle_compact_after.count() > 0 && !st.transcript.empty()) {
    const json& last = st.transcript.back();
    auto at = last.find("timestamp");
    auto ts = at != last.end() && at->is_string() ? at->get<std::string>()
                                                  : std::string{};
    if (!ts.empty() && ts < iso_minus(st.cfg.idle_compact_after)) {
      archive_range(self, st.archived, n);
      fire(self, turn_event::ok);
      return;
    }
  }
  // The replay no longer fits: archive the oldest turns down to half.
  governor_limits lim;
  // The chat's preset (/model) sets the window the replay must fit.
  lim.context_window_tokens = st.runtime.context_window_tokens;
  lim.max_output_tokens = st.runtime.max_tokens > 0 ? st.runtime.max_tokens
                                                    : 8192;
  auto budget = input_budget(lim);
  // Indices into what is held (from `base` on; the mark never precedes it).
  auto held_mark = st.archived - st.base;
  auto start = replay_start(st.transcript, held_mark);
  auto estimate = st.prompt_tokens
                  + replay_tokens(st.replay, st.transcript, st.base, start,
                                  st.generation);
  if (estimate >= budget) {
    if (auto upto = archive_boundary(st.transcript, held_mark,
                                     estimate - budget / 2))
      archive_range(self, st.archived, st.base + *upto);
  }
  fire(self, turn_event::ok);
}

void clear_session(session_pointer self, std::function<void()> then,
                   std::function<void(const caf::error&)> failed) {
  auto& st = self->state;
  // What was not archived yet goes to the history log in the background;
  // a range still being summarised is not archived twice.
  archive_range(self, st.archiving ? st.archiving_upto : st.archived,
                message_count(st));
  // Replies for ranges of the old conversation no longer move the mark.
  ++st.generation;
  st.archiving = false;
  auto meta = st.file_meta;
  meta.erase(mark_key);
  meta.erase(summary_key);
  meta["cleared_at"] = iso_now();
  session_replace fresh{st.key, meta.dump(), {}};
  fresh.conversation_set = true; // a new conversation: no saved state
  st.has_conversation = false;
  timed_request(self, st.svc.store, st.cfg.store_timeout, std::move(fresh))
    .then(
      guard("session", [=](caf::ok_atom) {
        auto& st = self->state;
        st.file_meta = meta;
        st.transcript.clear();
        st.base = 0;
        st.earlier_usage = nlohmann::json::object();
        st.last_usage = token_usage{};
        st.last_turn_sum = token_usage{};
        st.archived = 0;
        st.summary.clear();
        st.summary_at.clear();
        st.meta_dirty = false;
        then();
      }),
      [=](caf::error& err) { failed(err); });
}

void idle_compact_tick(session_pointer self) {
  auto& st = self->state;
  if (!st.machine.done())
    return;
  write_memory_meta(self); // a mark that could not be written before
  if (st.archiving || !has_unarchived(self)
      || st.cfg.idle_compact_after.count() <= 0)
    return;
  // The actor's clock: simulated under the deterministic test scheduler.
  auto idle = self->clock().now() - st.last_active;
  if (idle < st.cfg.idle_compact_after)
    return;
  st.log->info("[{}] idle for {} s: archiving messages {}..{}", st.key,
               std::chrono::duration_cast<std::chrono::seconds>(idle).count(),
               st.archived, message_count(st));
  archive_range(self, st.archived, message_count(st));
}

bool archive_work_pending(session_pointer self) {
  auto& st = self->state;
  // Work under way only: an idle compaction not due yet does not keep the
  // actor (and its memory) alive past gateway.sessionIdleSeconds; the chat
  // is archived when it comes back (COMPACT reads the file's timestamps).
  return st.archiving || st.meta_dirty || st.meta_writing;
}

} // namespace nb

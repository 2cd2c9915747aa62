#include "actors/inbox/inbox.hpp"

#include <nlohmann/json.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/iso_time.hpp"
#include "actors/common/stray_errors.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/inbox/journal_file.hpp"
#include "actors/inbox/journal_records.hpp"
#include "actors/store/posix_io.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// Marks a re-delivered message, so its session checks whether it stored
/// it already (the settle record may not have reached the disk).
void mark_replayed(inbound_msg& msg) {
  auto meta = json::parse(msg.metadata_json, nullptr, false);
  if (!meta.is_object())
    meta = json::object();
  meta["_replayed"] = true;
  msg.metadata_json = meta.dump(-1, ' ', false,
                                json::error_handler_t::replace);
}

/// Reads one journal, saying what was cut off or skipped.
inbox::journal_image read_logged(inbox_pointer self, const std::string& bytes,
                                 const std::string& path) {
  auto& st = self->state;
  auto img = inbox::read_journal(bytes, st.cfg.seen_limit);
  if (img.tail != inbox::tail_kind::clean)
    st.log->warn("inbox journal {}: a {} last record was cut off", path,
                 img.tail == inbox::tail_kind::torn ? "torn" : "damaged");
  if (img.bad_records > 0)
    st.log->warn("inbox journal {}: {} unreadable record(s) skipped", path,
                 img.bad_records);
  return img;
}

/// Takes over the unsettled entries of a journal another gateway left on
/// this home: they join `img` under new ids of its epoch (the old id rides
/// along as "_inbox_was", so a session that stored one knows it), after
/// its own entries; its seen keys join too.
void adopt(inbox_pointer self, inbox::journal_image& img,
           inbox::journal_image orphan, const std::string& path) {
  auto& st = self->state;
  if (!orphan.live.empty())
    st.log->info("inbox: taking over {} unsettled message(s) from {}, left "
                 "by a gateway that ran beside another on this home",
                 orphan.live.size(), path);
  for (auto& e : orphan.live) {
    auto meta = json::parse(e.msg.metadata_json, nullptr, false);
    if (!meta.is_object())
      meta = json::object();
    if (!meta.contains("_inbox_was"))
      meta["_inbox_was"] = e.id;
    e.msg.metadata_json = meta.dump(-1, ' ', false,
                                    json::error_handler_t::replace);
    e.id = img.epoch + "." + std::to_string(img.next_seq++);
    img.live.push_back(std::move(e));
  }
  img.seen.set_limit(st.cfg.seen_limit);
  for (auto d : orphan.seen.digests())
    img.seen.add_digest(d);
}

/// Takes the journal as read at start (and those it adopted): sets messages
/// given up on aside, rewrites the journal compacted (with the attempt
/// counts raised) and sends the rest to their sessions, in their original
/// order.
void start_from(inbox_pointer self, const std::string& bytes,
                const std::string& path,
                const std::vector<std::string>& orphan_paths,
                const std::vector<std::string>& orphan_bytes) {
  auto& st = self->state;
  auto img = read_logged(self, bytes, path);
  if (img.epoch.empty())
    img.epoch = store_io::random_hex(4);
  for (size_t i = 0; i < orphan_paths.size() && i < orphan_bytes.size(); ++i)
    adopt(self, img, read_logged(self, orphan_bytes[i], orphan_paths[i]),
          orphan_paths[i]);
  st.epoch = img.epoch;
  st.next_seq = img.next_seq;
  std::vector<inbox::journal_entry> replay;
  for (auto& e : img.live) {
    if (e.attempts + 1 >= st.cfg.max_attempts) {
      st.log->error("[{}] message {} was delivered {} times without being "
                    "stored (each start ended before its session kept it); "
                    "set aside in {}/undelivered.jsonl",
                    routed_session_key(e.msg), e.id, e.attempts + 1,
                    st.cfg.dir);
      json line{{"id", e.id},
                {"session_key", routed_session_key(e.msg)},
                {"channel", e.msg.channel},
                {"chat_id", e.msg.chat_id},
                {"sender_id", e.msg.sender_id},
                {"content", e.msg.content},
                {"metadata", e.msg.metadata_json},
                {"set_aside_at", iso_now()}};
      timed_request(self, journal_worker(self), st.cfg.write_timeout,
                    inbox::keep_atom::value,
                    std::string{"undelivered.jsonl"},
                    line.dump(-1, ' ', false, json::error_handler_t::replace)
                      + "\n")
        .then([](caf::ok_atom) {},
              [self](caf::error& err) {
                self->state.log->error("could not write undelivered.jsonl: "
                                       "{}",
                                       self->system().render(err));
              });
      continue;
    }
    ++e.attempts;
    replay.push_back(std::move(e));
  }
  img.live = replay;
  st.seen = img.seen;
  st.seen.set_limit(st.cfg.seen_limit);
  st.seen_bytes =
    static_cast<int64_t>(st.seen.size()) * inbox::seen_digest_bytes;
  for (auto& e : replay) {
    auto frame = inbox::put_record(e);
    st.live_bytes += static_cast<int64_t>(frame.size());
    if (!e.dedup_key.empty())
      st.by_key[e.dedup_key] = e.id;
    st.live[inbox::seq_of(e.id)]
      = inbox_state::live_entry{e.id, e.dedup_key, std::move(frame), true};
  }
  // The worker takes requests in order: the compaction is done before
  // the first new message is appended.
  st.file_bytes = static_cast<int64_t>(bytes.size());
  st.writing = true;
  timed_request(self, journal_worker(self), st.cfg.write_timeout,
                inbox::compact_atom::value,
                inbox::compacted(img))
    .then(
      [self](int64_t size) {
        self->state.file_bytes = size;
        self->state.compacted_bytes = size;
        self->state.writing = false;
        flush(self);
      },
      [self](caf::error& err) {
        self->state.log->error("could not rewrite the inbox journal at "
                               "start: {}",
                               self->system().render(err));
        self->state.writing = false;
        flush(self);
      });
  if (!replay.empty())
    st.log->info("inbox: {} unsettled message(s) from {} go to their "
                 "sessions again",
                 replay.size(), path);
  for (auto& e : replay) {
    auto msg = std::move(e.msg);
    msg.inbox_id = e.id;
    mark_replayed(msg);
    self->send(st.entry, std::move(msg));
  }
}

} // namespace

const inbox::worker_actor& journal_worker(inbox_pointer self) {
  auto& st = self->state;
  if (!st.worker) {
    st.worker = inbox::spawn_worker(self->system(), st.cfg.dir, st.file);
    // A worker that fails takes the inbox with it (the supervisor starts
    // both again); one that retires is unlinked first.
    self->link_to(st.worker);
  }
  // One timer at a time, not one per request: it checks when it fires
  // whether the worker was asked anything since.
  st.worker_asked = std::chrono::steady_clock::now();
  if (!st.retire_armed) {
    st.retire_armed = true;
    self->delayed_send(self, st.cfg.worker_idle, inbox::retire_atom::value);
  }
  return st.worker;
}

inbox_full::behavior_type inbox_impl(inbox_pointer self, inbox_config cfg,
                                     router_actor entry, stats_actor stats) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.seen.set_limit(st.cfg.seen_limit);
  st.entry = std::move(entry);
  st.stats = std::move(stats);
  st.log = log::get("inbox");
  st.meter.start(self, "inbox", st.stats);
  drop_stray_errors(self, "inbox", "inbox");
  st.file = std::make_shared<inbox::journal_file>();
  // Nothing new is taken before the journal's unsettled messages are on
  // their way (await holds the mailbox).
  timed_request(self, journal_worker(self), st.cfg.write_timeout,
                inbox::open_atom::value)
    .await(
      [self](std::string& bytes, std::string& path,
             std::vector<std::string>& orphan_paths,
             std::vector<std::string>& orphan_bytes) {
        try {
          start_from(self, bytes, path, orphan_paths, orphan_bytes);
        } catch (const std::exception& e) {
          self->state.log->error("inbox journal {} unreadable ({}); "
                                 "messages pass through unjournaled",
                                 path, e.what());
          self->state.broken = true;
        }
      },
      [self](caf::error& err) {
        self->state.log->error("inbox journal unavailable ({}); messages "
                               "pass through unjournaled",
                               self->system().render(err));
        self->state.broken = true;
      });
  // The exception guard: a handler that throws (it should not) costs that
  // one message an error, never the inbox.
  auto guarded = [self](const char* what, auto&& work) {
    try {
      work();
      return true;
    } catch (const std::exception& e) {
      self->state.meter.failed();
      self->state.log->error("inbox: {} failed: {}", what, e.what());
      return false;
    }
  };
  return {
    [self, guarded](inbound_msg& msg) {
      auto t = self->state.meter.measure();
      guarded("a message", [&] { record(self, std::move(msg), nullptr); });
    },
    [self, guarded](inbox_record& rec) -> caf::result<inbox_receipt> {
      auto t = self->state.meter.measure();
      auto rp = self->make_response_promise<inbox_receipt>();
      if (!guarded("a message", [&] { record(self, std::move(rec.msg), &rp); }))
        rp.deliver(caf::make_error(errc::store_failed,
                                   "the inbox could not take the message"));
      return rp;
    },
    [self, guarded](inbox_settle& s) {
      auto t = self->state.meter.measure();
      guarded("a settle", [&] { settle(self, s.id); });
    },
    [self](session_idle& idle) { self->send(self->state.entry, idle); },
    [self](session_services& svc) {
      self->send(self->state.entry, std::move(svc));
    },
    [self](live_sessions_atom) -> caf::result<int32_t> {
      return self->delegate(self->state.entry, live_sessions_atom::value);
    },
    [self](flush_atom) -> caf::result<int32_t> {
      // The drain before shutdown: once the turns are over, what their
      // sessions settled goes to the journal before the answer, so the
      // next start does not deliver those messages again.
      auto rp = self->make_response_promise<int32_t>();
      // No deadline of its own: the runtime's request bounds the drain.
      timed_request(self, self->state.entry, caf::infinite, flush_atom::value)
        .then(
          [self, rp](int32_t running) mutable {
            after_writes(self,
                         [rp, running]() mutable { rp.deliver(running); });
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [self](inbox::retire_atom) {
      auto& st = self->state;
      st.retire_armed = false;
      if (!st.worker)
        return;
      auto quiet = std::chrono::steady_clock::now() - st.worker_asked;
      if (st.writing || quiet < st.cfg.worker_idle) {
        // Asked since, or a write that outlasted the idle time: look again
        // once the idle time has passed after the last request.
        st.retire_armed = true;
        auto left = st.writing ? st.cfg.worker_idle
                               : std::chrono::duration_cast<
                                   std::chrono::milliseconds>(
                                   st.cfg.worker_idle - quiet);
        self->delayed_send(self, left, inbox::retire_atom::value);
        return;
      }
      self->unlink_from(st.worker);
      // In its mailbox after every request it was sent: it answers them
      // all, then ends.
      self->send(st.worker, inbox::retire_atom::value);
      st.worker = nullptr;
    },
  };
}

inbox_actor spawn_inbox(caf::actor_system& sys, inbox_config cfg,
                        router_actor entry, stats_actor stats) {
  return caf::actor_cast<inbox_actor>(
    sys.spawn(inbox_impl, std::move(cfg), std::move(entry),
              std::move(stats)));
}

} // namespace nb

// The inbox's group commit: messages that arrive while a write is at the
// worker wait in the next batch, so one fsync covers all of them; settle
// records ride along with the next message's write (without an fsync of
// their own), or go alone once cfg.settle_delay has passed; compaction
// rewrites the journal when settled records make up most of it.
#include "actors/inbox/inbox.hpp"

#include "actors/agents/agent_route.hpp"
#include "actors/common/log.hpp"
#include "actors/common/own_timer.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/inbox/journal_records.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

void report(inbox_pointer self) {
  auto& st = self->state;
  if (!st.stats)
    return;
  // Only the figures that changed since they were last sent: a record and
  // a settle each reported all six, a dozen messages to the stats actor per
  // plain turn, two of them (duplicates, refused) nearly always the same.
  size_t slot = 0;
  auto gauge = [&](const char* name, int64_t v) {
    auto& last = st.reported[slot++];
    if (v == last)
      return;
    last = v;
    self->send(st.stats, gauge_sample{name, v});
  };
  gauge("inbox_live", static_cast<int64_t>(st.live.size()));
  gauge("inbox_bytes", st.file_bytes);
  gauge("inbox_appended", st.appended);
  gauge("inbox_fsyncs", st.fsyncs);
  gauge("inbox_duplicates", st.duplicates);
  gauge("inbox_refused", st.refused);
}

bool needs_compaction(inbox_pointer self) {
  auto& st = self->state;
  auto keep = st.live_bytes + st.seen_bytes;
  // Only once the file has grown since the last compaction: when what is
  // kept is all there is, rewriting it again gains nothing.
  return st.file_bytes > st.compacted_bytes + st.cfg.compact_min_bytes
         && (st.file_bytes > 2 * keep + st.cfg.compact_min_bytes
             || st.file_bytes + static_cast<int64_t>(st.batch_bytes.size())
                  > st.cfg.max_bytes);
}

/// Rewrites the journal as its durable live entries and the seen list; the
/// waiting batch (not yet on disk) is written after it.
void compact(inbox_pointer self) {
  auto& st = self->state;
  std::string bytes = inbox::head_record(st.epoch, st.next_seq);
  for (auto& [seq, e] : st.live)
    if (e.durable)
      bytes += e.frame;
  if (!st.seen.empty())
    bytes += inbox::seen_record(st.seen);
  st.writing = true;
  auto before = st.file_bytes;
  timed_request(self, journal_worker(self), st.cfg.write_timeout,
                inbox::compact_atom::value,
                std::move(bytes))
    .then(
      [self, before](int64_t size) {
        auto& st = self->state;
        st.file_bytes = size;
        st.compacted_bytes = size;
        st.writing = false;
        st.log->debug("journal compacted: {} -> {} bytes", before, size);
        flush(self);
      },
      [self](caf::error& err) {
        auto& st = self->state;
        st.writing = false;
        st.log->error("journal compaction failed: {}",
                      self->system().render(err));
        // Go on appending; the next compaction comes once the file grew.
        st.compacted_bytes = st.file_bytes;
        flush(self);
      });
}

void on_written(inbox_pointer self, std::vector<inbox_state::item> items,
                bool synced, int64_t size) {
  auto& st = self->state;
  st.file_bytes = size;
  if (synced)
    ++st.fsyncs;
  for (auto& it : items) {
    if (it.forward) {
      ++st.appended;
      if (auto i = st.live.find(inbox::seq_of(it.receipt.id));
          i != st.live.end())
        i->second.durable = true;
      self->send(st.entry, std::move(it.msg));
    }
    if (it.has_promise)
      it.promise.deliver(std::move(it.receipt));
  }
  report(self);
}

void on_write_failed(inbox_pointer self, std::vector<inbox_state::item> items,
                     const caf::error& err) {
  auto& st = self->state;
  auto why = self->system().render(err);
  st.log->error("could not write the inbox journal: {}", why);
  for (auto& it : items) {
    if (it.forward) {
      // Not durable: forget it, so a redelivery is journaled afresh.
      auto seq = inbox::seq_of(it.receipt.id);
      if (auto i = st.live.find(seq); i != st.live.end()) {
        st.live_bytes -= static_cast<int64_t>(i->second.frame.size());
        if (!i->second.dedup_key.empty())
          st.by_key.erase(i->second.dedup_key);
        st.live.erase(i);
      }
      // Nobody waits for a receipt (cron, the API ...): the message goes on
      // unjournaled rather than not at all. An adapter gets the error and
      // does not acknowledge; its platform sends the message again.
      if (!it.has_promise) {
        it.msg.inbox_id.clear();
        self->send(st.entry, std::move(it.msg));
      }
    }
    if (it.has_promise)
      it.promise.deliver(err);
  }
}

} // namespace

void flush(inbox_pointer self) {
  auto& st = self->state;
  if (st.writing)
    return;
  if (st.batch.empty() && st.batch_bytes.empty()) {
    auto waiting = std::move(st.when_written);
    st.when_written.clear();
    for (auto& then : waiting)
      then();
    return;
  }
  if (needs_compaction(self)) {
    compact(self);
    return;
  }
  st.writing = true;
  auto items = std::move(st.batch);
  st.batch.clear();
  auto bytes = std::move(st.batch_bytes);
  st.batch_bytes.clear();
  bool sync = st.batch_sync;
  st.batch_sync = false;
  if (bytes.empty()) {
    // Only duplicates waiting on an earlier write, which is done.
    st.writing = false;
    on_written(self, std::move(items), false, st.file_bytes);
    return;
  }
  auto shared = std::make_shared<std::vector<inbox_state::item>>(
    std::move(items));
  timed_request(self, journal_worker(self), st.cfg.write_timeout,
                inbox::write_atom::value, std::move(bytes), sync)
    .then(
      [self, shared, sync](int64_t size) {
        self->state.writing = false;
        on_written(self, std::move(*shared), sync, size);
        flush(self);
      },
      [self, shared](caf::error& err) {
        self->state.writing = false;
        on_write_failed(self, std::move(*shared), err);
        flush(self);
      });
}

void record(inbox_pointer self, inbound_msg msg,
            caf::typed_response_promise<inbox_receipt>* promise) {
  auto& st = self->state;
  // A temporary chat (the WebUI's) is never journaled. The journal exists
  // to replay a message into its transcript after a crash, and a temporary
  // chat's transcript does not survive a crash by design: a replay would
  // answer it with no context into a chat the browser has left, and the
  // journal would keep the words on disk until its next compaction. So the
  // promise is weaker here: a crash loses the whole temporary chat,
  // including a message not yet answered.
  if (is_temporary(msg)) {
    self->send(st.entry, std::move(msg));
    if (promise)
      promise->deliver(inbox_receipt{});
    return;
  }
  auto key = inbox::dedup_key(msg);
  if (!key.empty() && !st.by_key.count(key) && st.seen.contains(key)) {
    // Settled already: its session has it.
    ++st.duplicates;
    st.log->debug("redelivered message ({}) dropped: settled before",
                  routed_session_key(msg));
    if (promise)
      promise->deliver(inbox_receipt{"", true});
    return;
  }
  if (!key.empty()) {
    if (auto k = st.by_key.find(key); k != st.by_key.end()) {
      ++st.duplicates;
      auto id = k->second;
      st.log->debug("redelivered message {} ({}) dropped", id,
                    routed_session_key(msg));
      auto i = st.live.find(inbox::seq_of(id));
      if (i != st.live.end() && !i->second.durable) {
        // The first copy is not on disk yet: answer with its write.
        inbox_state::item it;
        it.receipt = inbox_receipt{id, true};
        if (promise) {
          it.has_promise = true;
          it.promise = *promise;
        }
        st.batch.push_back(std::move(it));
        flush(self);
      } else if (promise) {
        promise->deliver(inbox_receipt{id, true});
      }
      return;
    }
  }
  if (st.broken) {
    self->send(st.entry, std::move(msg));
    if (promise)
      promise->deliver(inbox_receipt{});
    return;
  }
  auto seq = st.next_seq++;
  inbox::journal_entry e;
  e.id = st.epoch + "." + std::to_string(seq);
  e.dedup_key = key;
  e.msg = msg;
  e.msg.reply_to = nullptr;
  e.msg.inbox_id.clear();
  auto bytes = inbox::put_record(e);
  auto size = static_cast<int64_t>(bytes.size());
  if (st.live_bytes + size > st.cfg.max_bytes) {
    ++st.refused;
    auto why = "the inbox journal is full: " + std::to_string(st.live.size())
               + " unsettled message(s) take " + std::to_string(st.live_bytes)
               + " bytes of gateway.inbox.maxBytes "
               + std::to_string(st.cfg.max_bytes)
               + " (sessions are not keeping up or not settling)";
    if (st.refused == 1 || st.refused % 100 == 0)
      st.log->error("[{}] message refused: {}", routed_session_key(msg),
                    why);
    if (promise) {
      promise->deliver(caf::make_error(errc::inbox_full, why));
    } else {
      // Nobody can be told to send it again: it goes on unjournaled.
      self->send(st.entry, std::move(msg));
    }
    report(self);
    return;
  }
  msg.inbox_id = e.id;
  st.live_bytes += size;
  if (!key.empty())
    st.by_key[key] = e.id;
  st.live[seq] = inbox_state::live_entry{e.id, key, bytes, false};
  inbox_state::item it;
  it.msg = std::move(msg);
  it.forward = true;
  it.receipt = inbox_receipt{e.id, false};
  if (promise) {
    it.has_promise = true;
    it.promise = *promise;
  }
  st.batch.push_back(std::move(it));
  st.batch_bytes += bytes;
  st.batch_sync = true;
  flush(self);
}

void settle(inbox_pointer self, const std::string& id) {
  auto& st = self->state;
  if (id.size() <= st.epoch.size() || id.compare(0, st.epoch.size(), st.epoch)
      || id[st.epoch.size()] != '.')
    return; // not ours (an old journal's entry settled late)
  auto i = st.live.find(inbox::seq_of(id));
  if (i == st.live.end() || i->second.id != id)
    return; // settled already
  st.live_bytes -= static_cast<int64_t>(i->second.frame.size());
  if (auto& key = i->second.dedup_key; !key.empty()) {
    st.seen.add(key);
    st.seen_bytes =
      static_cast<int64_t>(st.seen.size()) * inbox::seen_digest_bytes;
    if (auto k = st.by_key.find(key); k != st.by_key.end() && k->second == id)
      st.by_key.erase(k);
  }
  st.live.erase(i);
  st.batch_bytes += inbox::settle_record(id);
  // A settle needs no fsync and nobody waits for it. Written at once, it
  // cost the journal's worker a round trip of its own per turn; it rides
  // with the next message's write instead (a message in the batch is
  // being written or will be), or goes alone a moment later. Lost in a
  // crash, the entry is delivered again at start, and its session, which
  // has the message, settles it without a turn (already_stored).
  if (!st.batch.empty() || st.settle_armed)
    return;
  st.settle_armed = true;
  auto due = self->clock().now();
  due += st.cfg.settle_delay;
  run_at(self, due, [self] {
    self->state.settle_armed = false;
    flush(self);
  });
}

void after_writes(inbox_pointer self, std::function<void()> then) {
  self->state.when_written.push_back(std::move(then));
  flush(self);
}

} // namespace nb

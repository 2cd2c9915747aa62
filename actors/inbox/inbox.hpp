// The durable inbox (one per gateway): every inbound message is appended to
// a journal under <home>/inbox and fsync'd before it goes on to the entry
// router and before the adapter that asked acknowledges its platform. Many
// messages share one fsync (group commit). Sessions settle entries once the
// message is in their transcript; the journal is compacted as they do. At
// start the unsettled entries go to their sessions again, in order, before
// anything new; a redelivery with a known platform message id is answered
// as a duplicate and goes nowhere.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <spdlog/spdlog.h>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/common/meter.hpp"
#include "actors/common/request_deadlines.hpp"
#include "actors/inbox/inbox_worker.hpp"
#include "actors/inbox/seen_keys.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct inbox_config {
  std::string dir; ///< <home>/inbox
  /// Unsettled messages may take this much journal; past it new ones are
  /// refused with errc::inbox_full (the platforms keep them meanwhile).
  int64_t max_bytes = 64 << 20;
  /// Starts that may re-deliver one entry; then it is set aside in
  /// <dir>/undelivered.jsonl (a message that crashes the gateway every time
  /// must not keep it from starting).
  int32_t max_attempts = 5;
  size_t seen_limit = 20000;  ///< settled dedup keys remembered
  int64_t compact_min_bytes = 1 << 20;
  std::chrono::seconds write_timeout{60};
  /// A file worker with nothing to do for this long is retired, so an idle
  /// gateway holds no thread for its journal (issue 22).
  std::chrono::milliseconds worker_idle{std::chrono::seconds{30}};
  /// Settle records wait this long for a message's write to ride along
  /// with before they are written on their own.
  std::chrono::milliseconds settle_delay{1000};
};

struct inbox_state {
  inbox_state() = default;
  static inline const char* name = "inbox";

  struct live_entry {
    std::string id;
    std::string dedup_key;
    std::string frame;    ///< its put record, for compaction
    bool durable = false; ///< written and fsync'd
  };

  /// A message waiting for the next write.
  struct item {
    inbound_msg msg;
    bool forward = false; ///< pass on to the entry once durable
    bool has_promise = false;
    caf::typed_response_promise<inbox_receipt> promise;
    inbox_receipt receipt;
  };

  inbox_config cfg;
  router_actor entry;
  stats_actor stats;
  /// The journal file, lent to the worker (opened by the first one).
  std::shared_ptr<inbox::journal_file> file;
  inbox::worker_actor worker; ///< null while retired
  std::chrono::steady_clock::time_point worker_asked; ///< the last request
  bool retire_armed = false; ///< a retire_atom is on its way
  actor_meter meter;
  std::shared_ptr<spdlog::logger> log;
  /// The timeouts of its pending requests (timed_request).
  request_deadlines deadlines;
  bool broken = false; ///< the journal could not be opened: pass-through

  std::string epoch;
  int64_t next_seq = 1;
  std::map<int64_t, live_entry> live; ///< unsettled, by sequence number
  /// Dedup key -> id of the unsettled entry with that key.
  std::unordered_map<std::string, std::string> by_key;
  inbox::seen_keys seen; ///< settled dedup keys, oldest first

  std::vector<item> batch;   ///< waiting for the next write
  std::string batch_bytes;   ///< their records and settle records
  bool batch_sync = false;   ///< the batch holds puts: fsync it
  bool writing = false;      ///< a write or compaction is at the worker
  bool settle_armed = false; ///< a lone settle write is on the clock
  /// Called once nothing waits to be written (the drain at shutdown).
  std::vector<std::function<void()>> when_written;

  int64_t file_bytes = 0;
  int64_t compacted_bytes = 0; ///< the file's size after the last compaction
  int64_t live_bytes = 0;
  int64_t seen_bytes = 0;
  int64_t appended = 0;   ///< messages journaled
  int64_t fsyncs = 0;
  int64_t duplicates = 0;
  int64_t refused = 0;
  /// The gauges' values last sent to the stats actor (-1: none yet).
  std::array<int64_t, 6> reported{-1, -1, -1, -1, -1, -1};
};

/// The inbox and its own timer: retire the worker if it was asked nothing
/// for cfg.worker_idle.
using inbox_full = inbox_actor::extend<caf::reacts_to<inbox::retire_atom>>;
using inbox_pointer = inbox_full::stateful_pointer<inbox_state>;

inbox_full::behavior_type inbox_impl(inbox_pointer self, inbox_config cfg,
                                     router_actor entry, stats_actor stats);

/// Spawns the inbox in front of `entry`.
inbox_actor spawn_inbox(caf::actor_system& sys, inbox_config cfg,
                        router_actor entry, stats_actor stats);

// -- the group commit (inbox_commit.cpp) -------------------------------------

/// Journals `msg` and passes it on once durable; `promise` (may be null)
/// gets the receipt then, or the error.
void record(inbox_pointer self, inbound_msg msg,
            caf::typed_response_promise<inbox_receipt>* promise);

/// Forgets the entry `id` (a session stored it).
void settle(inbox_pointer self, const std::string& id);

/// Starts the next write when none is running.
void flush(inbox_pointer self);

/// Runs `then` once everything waiting, settle records included, is
/// written.
void after_writes(inbox_pointer self, std::function<void()> then);

/// The file worker for the next request (a new one when the last retired);
/// it is retired once `cfg.worker_idle` passes without another request.
const inbox::worker_actor& journal_worker(inbox_pointer self);

} // namespace nb

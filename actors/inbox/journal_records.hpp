// What the inbox journal's records say: a head (the journal's epoch and the
// next sequence number), a put (one inbound message), a settle (a session
// stored it) and a seen list (dedup keys of recently settled messages).
// Records are JSON payloads inside frames. Pure functions.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "actors/inbox/journal_frames.hpp"
#include "actors/inbox/seen_keys.hpp"
#include "messages/chat.hpp"

namespace nb::inbox {

/// One unsettled inbound message.
struct journal_entry {
  std::string id;        ///< "<epoch>.<seq>"
  std::string dedup_key; ///< "" when the platform gave no message id
  int32_t attempts = 0;  ///< deliveries that were cut short by a restart
  inbound_msg msg;       ///< without reply_to (a handle does not outlive us)
};

/// The dedup key of `msg`: channel, chat and the metadata's "_message_id"
/// ("" when there is none).
std::string dedup_key(const inbound_msg& msg);

std::string head_record(const std::string& epoch, int64_t next_seq);
std::string put_record(const journal_entry& e);
std::string settle_record(const std::string& id);
/// The seen list as digests ({"t":"seen","dh":[16 hex digits, ...]}); a
/// journal written before digests has the keys themselves ("dk").
std::string seen_record(const seen_keys& seen);

/// The journal as read back.
struct journal_image {
  std::string epoch;    ///< "" when the file had no head
  int64_t next_seq = 1;
  std::vector<journal_entry> live;  ///< unsettled, in arrival order
  seen_keys seen;                   ///< settled dedup keys, oldest first
  size_t good_bytes = 0;
  tail_kind tail = tail_kind::clean;
  size_t bad_records = 0; ///< framed but unreadable (skipped)
};

/// Reads `bytes`; keeps at most `seen_limit` settled keys.
journal_image read_journal(std::string_view bytes, size_t seen_limit);

/// The compacted journal for `img`: head, live entries, seen list.
std::string compacted(const journal_image& img);

/// The sequence number in an entry id (0 when malformed).
int64_t seq_of(const std::string& id);

} // namespace nb::inbox

// What becomes of each Mochat message before it is handed on, without any
// I/O: one seen before is skipped (a redelivery after a reconnect), a group
// message that must mention the agent and does not is dropped, and with
// replyDelayMode "non-mention" a panel message that does not mention the
// agent waits: it goes with the next mention in that panel, or alone once
// replyDelayMs passed. A waiting message's Socket.IO ack waits with it, so
// the platform keeps what we have not journaled yet.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/channels/mochat/mochat_event.hpp"

namespace nb::mochat {

/// What to hand over now, and what to do once it is in the inbox journal.
struct ready_batch {
  std::vector<inbound_msg> msgs;
  std::vector<std::string> keys; ///< remember as seen once handed over
  std::vector<int64_t> acks;     ///< acknowledge once handed over
};

class sorter {
public:
  using clock = std::chrono::steady_clock;

  explicit sorter(mochat_config cfg) : cfg_(std::move(cfg)) {}

  /// Takes message `m` of `target`, from an event acknowledged by
  /// `ack_id`. Adds to `out` what goes on now; true when the event's ack
  /// must wait (the message waits in a buffer, which acks it later).
  bool take(const std::string& target, target_kind kind, message_add m,
            std::optional<int64_t> ack_id, clock::time_point now,
            ready_batch& out);

  /// Buffers whose time is up, into `out`.
  void due(clock::time_point now, ready_batch& out);
  /// When the next buffer is due (nullopt: none waits).
  std::optional<clock::time_point> next_due() const;

  /// Marks handed-over messages as seen (the last 2 000 per target).
  void remember(const std::vector<std::string>& keys);
  bool seen(const std::string& key) const { return seen_.count(key) > 0; }

  /// The connection is gone: waiting messages stay, their acks are void
  /// (the server sends those events again, which adds fresh ones).
  void forget_acks();

  size_t waiting() const;

private:
  struct buffer {
    std::string target;
    target_kind kind = target_kind::panel;
    std::vector<message_add> entries;
    std::vector<int64_t> acks;
    clock::time_point deadline;
  };

  static std::string key_of(target_kind kind, const std::string& target,
                            const std::string& id);
  void flush(buffer& b, bool mentioned, ready_batch& out);

  mochat_config cfg_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;
  std::map<std::string, buffer> buffers_; ///< by "panel:<target>"
};

} // namespace nb::mochat

// The durable inbox: what an adapter hands in to be journaled, the receipt
// it waits for before it acknowledges the platform, and the note a session
// sends once it has stored (or answered) the message.
#pragma once

#include <string>

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/chat.hpp"

namespace nb {

/// Asks the inbox to journal `msg` (fsync'd) and pass it on; the answer is
/// the receipt. The dedup key is the metadata's "_message_id" (per channel
/// and chat); a message without one is never a duplicate.
struct inbox_record {
  inbound_msg msg;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, inbox_record& x) {
  return f(caf::meta::type_name("inbox_record"), x.msg);
}

/// The message is on disk (or was dropped by access control, or is a
/// redelivery of one already on disk): the platform may be acknowledged.
struct inbox_receipt {
  std::string id;         ///< the journal entry ("" when not journaled)
  bool duplicate = false; ///< a redelivery: not passed on again
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, inbox_receipt& x) {
  return f(caf::meta::type_name("inbox_receipt"), x.id, x.duplicate);
}

/// The session stored the message with this inbox id in its transcript, or
/// answered it as a command: the journal entry may go.
struct inbox_settle {
  std::string id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, inbox_settle& x) {
  return f(caf::meta::type_name("inbox_settle"), x.id);
}

/// Where sessions send their settle notes (the inbox, or nothing).
using inbox_settle_sink = caf::typed_actor<caf::reacts_to<inbox_settle>>;

} // namespace nb

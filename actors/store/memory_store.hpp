// The store of a temporary chat (issue 20, part 3): the same interface as
// the file store, holding the transcript in the actor's memory only. The
// router gives one to each temporary session, linked to it, so the
// conversation is gone the moment the session ends (idle, deleted, or the
// gateway stopping): nothing of it ever reaches the disk.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "messages/session_admin.hpp"

namespace nb {

struct memory_store_state {
  memory_store_state() = default;
  static inline const char* name = "memory_store";
  struct held {
    std::string metadata_json = "{}";
    std::vector<std::string> messages;
    /// The saved Responses state as the file store's provider_state line
    /// (no '\n'; "" = none) and the messages written since it was set,
    /// which join its pending messages when a turn reads it (their images
    /// are read from files then, off the scheduler).
    std::string state_line;
    std::vector<std::string> state_after;
  };
  std::map<std::string, held> sessions;
};

/// No I/O of its own, so it runs on the scheduler like any event-based
/// actor (a saved state's pending images are read by a blocking task). It never
/// lists its sessions: session_list and the catalog answer empty, so the
/// heartbeat and the sessions page see only stored chats.
store_admin_actor::behavior_type memory_store_impl(
  store_admin_actor::stateful_pointer<memory_store_state> self);

} // namespace nb

// Session persistence: the session asks the store to read and write its file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "messages/conversation.hpp"

namespace nb {

/// Asks for a session's file as it is on disk.
struct session_load {
  std::string key;
  /// Only the file's saved provider conversation (the snapshot's
  /// `conversation`; no messages): read when a turn starts.
  bool conversation_only = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_load& x) {
  return f(caf::meta::type_name("session_load"), x.key, x.conversation_only);
}

/// A session file's content: the metadata line and one JSON text per message.
struct session_snapshot {
  std::string key;
  bool existed = false;
  std::string metadata_json = "{}"; ///< the "metadata" object of line one
  std::vector<std::string> messages;
  int32_t skipped_lines = 0; ///< corrupt lines left out (kept on disk)
  /// The file has a provider_state line (read with conversation_only).
  bool has_conversation = false;
  conversation_state conversation; ///< filled for conversation_only
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_snapshot& x) {
  return f(caf::meta::type_name("session_snapshot"), x.key, x.existed,
           x.metadata_json, x.messages, x.skipped_lines, x.has_conversation,
           x.conversation);
}

/// Appends messages (JSON object texts) to a session file and fsyncs it.
/// Creates the file, with its metadata line, when it does not exist yet.
/// `conversation_set`: the file's provider_state line becomes
/// `conversation` (no record: the line goes); otherwise a line the file has
/// is carried, the messages added to its pending ones.
struct session_append {
  std::string key;
  std::vector<std::string> messages;
  bool conversation_set = false;
  conversation_state conversation{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_append& x) {
  return f(caf::meta::type_name("session_append"), x.key, x.messages,
           x.conversation_set, x.conversation);
}

/// Atomically replaces a whole session file (temp file, fsync, rename).
/// The file's first `keep` messages stay as they are and `messages` follow
/// them: a session that no longer holds its archived messages in memory
/// still rewrites its metadata without losing them. A file with fewer than
/// `keep` messages is an error (nothing is written).
struct session_replace {
  std::string key;
  std::string metadata_json = "{}";
  std::vector<std::string> messages;
  uint64_t keep = 0;
  bool conversation_set = false; ///< as session_append's
  conversation_state conversation{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_replace& x) {
  return f(caf::meta::type_name("session_replace"), x.key, x.metadata_json,
           x.messages, x.keep, x.conversation_set, x.conversation);
}

// -- session activity (issue 4: the heartbeat's target)

/// Asks for the sessions on disk, most recently written first.
struct session_list {
  int32_t limit = 0; ///< 0 = all
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_list& x) {
  return f(caf::meta::type_name("session_list"), x.limit);
}

/// One session, when its file last changed, and what its metadata says
/// about where to reach its user.
struct session_activity {
  std::string key;
  int64_t updated_ms = 0; ///< epoch milliseconds
  bool archived = false;  ///< archived in the WebUI's sidebar
  /// unifiedSession: the chat its user last wrote from ("telegram:42").
  std::string last_channel{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_activity& x) {
  return f(caf::meta::type_name("session_activity"), x.key, x.updated_ms,
           x.archived, x.last_channel);
}

struct session_listing {
  std::vector<session_activity> sessions;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_listing& x) {
  return f(caf::meta::type_name("session_listing"), x.sessions);
}

} // namespace nb

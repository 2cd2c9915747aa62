// Session persistence: the session asks the store to read and write its file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

namespace nb {

/// Asks for a session's file as it is on disk.
struct session_load {
  std::string key;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_load& x) {
  return f(caf::meta::type_name("session_load"), x.key);
}

/// A session file's content: the metadata line and one JSON text per message.
struct session_snapshot {
  std::string key;
  bool existed = false;
  std::string metadata_json = "{}"; ///< the "metadata" object of line one
  std::vector<std::string> messages;
  int32_t skipped_lines = 0; ///< corrupt lines left out (kept on disk)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_snapshot& x) {
  return f(caf::meta::type_name("session_snapshot"), x.key, x.existed,
           x.metadata_json, x.messages, x.skipped_lines);
}

/// Appends messages (JSON object texts) to a session file and fsyncs it.
/// Creates the file, with its metadata line, when it does not exist yet.
struct session_append {
  std::string key;
  std::vector<std::string> messages;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_append& x) {
  return f(caf::meta::type_name("session_append"), x.key, x.messages);
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
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_replace& x) {
  return f(caf::meta::type_name("session_replace"), x.key, x.metadata_json,
           x.messages, x.keep);
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
  std::string last_channel;
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

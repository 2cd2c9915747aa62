// Sessions in PostgreSQL: the same operations and promises as the session
// files (session_files.hpp), for a store many machines share. Every write is
// one committed transaction, so with PostgreSQL's default synchronous_commit
// a message is durable when the call returns, as an fsync'd append is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "actors/store/pg_conn.hpp"
#include "messages/session_admin.hpp"
#include "messages/store.hpp"

namespace nb {

/// Creates the tables when missing (nb_sessions, nb_messages, nb_leases)
/// and adds the columns later versions use to tables made before them.
caf::error pg_ensure_schema(pg_connection& db);

/// A session as stored; `existed` false when there is none.
/// `conversation_only`: only its saved Responses state (the snapshot's
/// `conversation`), no messages, as the file store's load_session.
caf::expected<session_snapshot> pg_load_session(pg_connection& db,
                                                const std::string& key,
                                                bool conversation_only = false);

/// Appends messages (JSON object texts) after the existing ones, creating
/// the session when missing. Nothing is written when one is not an object.
/// `set_conversation`: the saved state becomes it (no record: none); null:
/// a saved state is carried, the messages added to its pending ones (the
/// file store's append_session).
caf::error pg_append_session(pg_connection& db, const std::string& key,
                             const std::vector<std::string>& messages,
                             const conversation_state* set_conversation
                             = nullptr);

/// Replaces a session's metadata and messages in one transaction; keeps
/// its created_at and its first `keep` messages (fewer stored: an error).
/// The saved state as the file store's replace_session treats it.
caf::error pg_replace_session(pg_connection& db, const std::string& key,
                              const std::string& metadata_json,
                              const std::vector<std::string>& messages,
                              uint64_t keep = 0,
                              const conversation_state* set_conversation
                              = nullptr);

/// Sessions by last write, newest first (`limit` 0 = all), as the session
/// files' list_sessions gives them.
caf::expected<session_listing> pg_list_sessions(pg_connection& db,
                                                int32_t limit);

// -- the WebUI's sessions page (pg_session_admin.cpp) ----------------------

/// Every session's card, newest first (`limit` 0 = all), as
/// catalog_sessions gives them from the files.
caf::expected<session_catalog> pg_catalog_sessions(pg_connection& db,
                                                   int32_t limit);

/// Merges `patch_json` into the session's metadata (JSON merge patch: null
/// removes a key), keeping every message. No session: errc::invalid_arguments
/// naming the key.
caf::error pg_patch_session_meta(pg_connection& db, const std::string& key,
                                 const std::string& patch_json);

/// Deletes a session and its messages; none stored is no error.
caf::error pg_remove_session(pg_connection& db, const std::string& key);

} // namespace nb

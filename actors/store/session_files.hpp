// Session files on disk: nanobot-compatible JSONL (a metadata line, then one
// message per line), read tolerantly, appended with fsync, replaced
// atomically. Plain blocking file I/O, no actors; nothing here throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include "config/settings.hpp"
#include "messages/session_admin.hpp"
#include "messages/store.hpp"

namespace nb {

/// The file name of a session: base64url(key) without '=' padding, plus
/// ".jsonl". Injective, so "a:b" and "a_b" never share a file.
std::string session_file_name(const std::string& key);

/// The sessions directory of a workspace, as the original nanobot finds it:
/// `<config_dir>/sessions/<workspace-id>` (no trailing slash), where the id
/// is the 32-hex text in `<workspace>/.nanobot/workspace-id` (created when
/// missing, recovered from a namespace whose `.workspace` names this
/// workspace) and the folder's `.workspace` file records the workspace that
/// owns it. A copied workspace gets a new id. An invalid id file, symlinked
/// markers, or a sessions folder inside the workspace are errors.
caf::expected<std::string> resolve_sessions_dir(const std::string& config_dir,
                                                const std::string& workspace);

/// Same, from the settings (config_dir() and workspace_path()).
inline caf::expected<std::string> resolve_sessions_dir(const settings& s) {
  return resolve_sessions_dir(s.config_dir(), s.workspace_path());
}

/// The lock the original takes around every read and write of the session
/// files in a sessions directory. We take it shared (our store workers each
/// own distinct keys and never write one file at once), the original takes
/// it exclusive: the two programs never touch the files at the same time.
inline constexpr const char* session_files_lock = ".session-files.lock";

/// Reads a session file. A missing file gives `existed == false`. Corrupt
/// lines (bad JSON, non-objects, a cut-off last line) are skipped and
/// counted; a bad or missing metadata line keeps the messages and gives "{}".
/// The file is never modified. Read errors (EACCES, EIO, EISDIR...) are
/// errors, never "corrupt, start empty".
/// `conversation_only`: only whether the file has a provider_state line
/// and the state it holds (snapshot.conversation), no messages.
caf::expected<session_snapshot> load_session(const std::string& dir,
                                             const std::string& key,
                                             bool conversation_only = false);

/// Appends messages (each a JSON object text) with O_APPEND and fsyncs the
/// file. Creates it (mode 0600, metadata line first) when missing or empty,
/// then fsyncs the directory. A last line cut off by a crash is closed with
/// '\n' first, so the new lines stay readable.
/// `set_conversation`: the file's provider_state line becomes this state
/// (none: the line goes); null: a line the file has is carried, the
/// messages added to its pending ones (the file is then rewritten).
caf::error append_session(const std::string& dir, const std::string& key,
                          const std::vector<std::string>& messages,
                          const conversation_state* set_conversation = nullptr);

/// Replaces the whole file atomically: writes `.<name>.<hex>.tmp`, fsyncs,
/// renames over, fsyncs the directory. On failure the old file is intact and
/// the temp file is gone. Keeps the old `created_at`. When the old file has
/// corrupt lines it is first hard-linked to `<name>.corrupt-<unix ms>`, so
/// the rewrite never destroys bytes that might be recovered by hand. The
/// old file's first `keep` messages stay, as written, before `messages`
/// (a file with fewer is an error; nothing is written).
caf::error replace_session(const std::string& dir, const std::string& key,
                           const std::string& metadata_json,
                           const std::vector<std::string>& messages,
                           uint64_t keep = 0,
                           const conversation_state* set_conversation = nullptr);

/// The human-readable text of a store error (its context), or "" for none.
std::string store_error_text(const caf::error& err);

/// The sessions in `dir`, most recently written first (at most `limit`,
/// 0 = all). Files that are not this store's sessions are left out.
/// `with_meta`: each file's metadata line is read for `archived` and
/// `last_channel` (session_list's answer; other callers need only keys).
session_listing list_sessions(const std::string& dir, int32_t limit = 0,
                              bool with_meta = false);

/// Fills `a.archived` and `a.last_channel` from a session's "metadata"
/// object (ignored when it is not one).
void read_activity_meta(const nlohmann::json& metadata, session_activity& a);

/// A WebUI card's "title" and "archived" from a session's "metadata"
/// object (ignored when it is not one).
void read_card_meta(const nlohmann::ordered_json& metadata, session_card& card);

/// A WebUI card's preview from one stored message line: the folded words
/// of a user message (cut at a UTF-8 boundary), "" for any other line.
std::string card_preview(const std::string& message_line);

/// The sessions in `dir` as the WebUI lists them (session_catalog.cpp):
/// most recently written first, each with its metadata "title" and
/// "archived", its first user message and its message count.
session_catalog catalog_sessions(const std::string& dir, int32_t limit = 0);

/// Merges `patch_json` into the metadata of `key`'s file (JSON merge
/// patch: null removes a key) and rewrites it atomically with every message
/// kept. No file: errc::invalid_arguments naming the key.
caf::error patch_session_meta(const std::string& dir, const std::string& key,
                              const std::string& patch_json);

/// Deletes `key`'s file and fsyncs the directory; a missing file is fine.
caf::error remove_session(const std::string& dir, const std::string& key);

} // namespace nb

// memory/history.jsonl: the append-only log of conversation summaries, one
// JSON object per line {"cursor", "timestamp", "content", "session_key"}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nb {

struct history_entry {
  int64_t cursor = 0;
  std::string timestamp; ///< "YYYY-MM-DD HH:MM", local time
  std::string content;
  std::string session_key; ///< "" for entries written without one
};

/// Longest entry kept; longer content is cut with a note.
inline constexpr size_t history_entry_cap = 64000;

/// Every readable entry of <workspace>/memory/history.jsonl, in file order.
/// Invalid lines are skipped (`skipped` counts them). Never throws.
std::vector<history_entry> read_history(const std::string& workspace,
                                        int* skipped = nullptr);

/// The newest cursor handed out: the larger of the highest entry in
/// history.jsonl and memory/.cursor, the counter the original keeps so a
/// cursor is never reused after old entries are compacted away (0: none).
int64_t latest_history_cursor(const std::string& workspace);

/// Appends one entry with the next cursor (after latest_history_cursor),
/// fsyncs the file and records the cursor in memory/.cursor as the original
/// does. Returns the entry written, or nullopt with `error` set. Blocking
/// (worker threads only); concurrent writers are serialised by the memory/
/// lock.
std::optional<history_entry> append_history(const std::string& workspace,
                                            const std::string& content,
                                            const std::string& session_key,
                                            std::string& error);

/// Moves a legacy memory/HISTORY.md (blank-line separated paragraphs, each
/// optionally starting "[YYYY-MM-DD HH:MM]") into history.jsonl once, and
/// renames it to HISTORY.md.bak. Returns how many entries it moved.
int migrate_legacy_history(const std::string& workspace, std::string& error);

/// The "# Recent History" prompt section: the last `max_entries` entries of
/// `session_key`, newest last, at most `max_chars` (oldest dropped first),
/// leaving out one identical to `skip_content`. "" when there are none.
std::string recent_history_section(const std::vector<history_entry>& all,
                                   const std::string& session_key,
                                   size_t max_entries, size_t max_chars,
                                   const std::string& skip_content);

/// Local time as "YYYY-MM-DD HH:MM".
std::string history_timestamp();

} // namespace nb

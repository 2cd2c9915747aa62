// Memory index: what the index core's files share — the source names, the
// limits, the small text and file helpers, and with_db (every use of the
// database goes through it, so a corrupt file is rebuilt and the call
// retried once). Private to actors/memory_index/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "actors/memory_index/index_core.hpp"

namespace nb::memory {

inline constexpr const char* memory_md = "memory/MEMORY.md";
inline constexpr const char* history_jsonl = "memory/history.jsonl";
inline constexpr size_t candidates_per_list = 50;
/// The automatic recall of a turn ranks only the newest this many chunks
/// matching the user's words, so a turn's search does not grow with the
/// index (ranking costs per match). A word found in more chunks than this
/// is a common one; the ranking's recency half-life favours the newest
/// anyway, and memory_search and /memory still rank every match.
inline constexpr int recall_newest_matches = 100;
/// Candidates per list for a recall, per snippet it may add (recall_k):
/// the rows read and de-duplicated per turn.
inline constexpr int recall_candidates_per_hit = 4;
inline constexpr size_t max_save_chars = 2000;

int64_t unix_now();

/// "size:mtime-ns", or "" when the file does not exist.
std::string file_stamp(const std::string& path);

/// The file's first max_file_bytes bytes; nullopt when it cannot be read.
std::optional<std::string> read_capped(const std::string& path);

/// `s` cut to at most `max` bytes on a character boundary, "…" when cut.
std::string shortened(const std::string& s, size_t max);

/// `s` on one line (line breaks and tabs as spaces), trimmed.
std::string one_line(std::string s);

template <class F>
auto index_core::with_db(F&& f) -> decltype(f()) {
  if (!db_)
    open();
  try {
    return f();
  } catch (const db_error& e) {
    if (!e.corrupt())
      throw;
    rebuild(e.what());
    return f();
  }
}

} // namespace nb::memory

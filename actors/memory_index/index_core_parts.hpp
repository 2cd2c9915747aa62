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

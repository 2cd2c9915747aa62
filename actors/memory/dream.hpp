// Dream: the original's periodic memory consolidation, our way. It reads the
// entries of memory/history.jsonl written since the last run (the original's
// cursor file memory/.dream_cursor, so either program continues where the
// other stopped), asks the model once for the lasting facts in them, adds
// those to memory/MEMORY.md and moves the cursor. Nothing new: no model call.
// A failed call leaves the cursor where it was (the batch is tried again).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/memory/history_file.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// Entries read per run (the original's batch).
inline constexpr size_t dream_batch = 20;
/// Longest part of one entry sent to the model.
inline constexpr size_t dream_entry_chars = 1000;
/// Longest part of MEMORY.md sent along (so known facts are not repeated).
inline constexpr size_t dream_memory_chars = 8000;

/// memory/.dream_cursor as a number (0 when missing or unreadable).
int64_t read_dream_cursor(const std::string& workspace);

/// Writes memory/.dream_cursor atomically; "" or the error.
std::string write_dream_cursor(const std::string& workspace, int64_t cursor);

/// Dream is off: moves memory/.dream_cursor up to the newest history cursor
/// when it is behind, as the original does at start (nanobot/cli/
/// gateway_runtime.py _advance_dream_cursor_if_behind), so what was written
/// meanwhile is not consolidated in one go once Dream is turned on again.
/// "" or the error.
std::string skip_dream_backlog(const std::string& workspace);

/// The entries after `cursor`, at most `batch`, oldest first.
std::vector<history_entry> dream_batch_after(
  const std::vector<history_entry>& all, int64_t cursor, size_t batch);

/// The one user message of a Dream call.
std::string dream_prompt(const std::vector<history_entry>& entries,
                         const std::string& memory_md);

/// The facts in the model's answer ("- fact" lines; "(nothing)" = none).
std::vector<std::string> dream_facts(const std::string& reply);

struct dream_job {
  provider_actor provider;
  std::string model;         ///< "" = the provider's default
  std::string provider_name; ///< a preset's provider ("" = by model)
  std::string workspace;
  std::chrono::seconds timeout{300};
};

/// Answers one `get_atom` with what the run did ("nothing to process",
/// "added N fact(s) from M entries; cursor at C", "did not complete: ...").
/// Detached: it reads and writes the memory files itself. Quits after.
caf::behavior dream_worker(caf::event_based_actor* self, dream_job job);

} // namespace nb

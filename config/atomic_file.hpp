// Crash-safe file writes: temp file, fsync, then link/rename into place;
// and synced appends to logs that only ever grow.
#pragma once

#include <string>
#include <string_view>

namespace nb {

enum class write_outcome { written, kept, failed };

struct write_result {
  write_outcome outcome = write_outcome::failed;
  std::string error; ///< "cannot write /x/y: Permission denied"
};

/// Creates `path` with `content` and `mode` unless it exists (then `kept`):
/// the file appears complete or not at all, and an existing file is never
/// replaced, even by a concurrent writer. Never throws.
write_result create_file_atomic(const std::string& path,
                                std::string_view content, unsigned mode);

/// What replace_file_atomic does with the mode of a file it replaces.
enum class existing_mode {
  keep,    ///< the replaced file's mode wins (`mode` only for a new file)
  replace, ///< always `mode` (a file that now holds secrets: 0600)
};

/// Replaces `path` atomically; an existing file keeps its mode, a new one
/// gets `mode` (with existing_mode::replace, the result always has `mode`).
/// Never throws.
write_result replace_file_atomic(const std::string& path,
                                 std::string_view content, unsigned mode,
                                 existing_mode policy = existing_mode::keep);

/// replace_file_atomic while `path` still holds `expected`, compared once
/// the new content is on disk, just before it is moved into place: `kept`,
/// and nothing replaced, when another writer (a hand edit, another program)
/// changed the file since the caller read it. A missing file matches "".
/// Never throws.
write_result replace_file_if_unchanged(const std::string& path,
                                       std::string_view content,
                                       std::string_view expected,
                                       unsigned mode,
                                       existing_mode policy =
                                         existing_mode::keep);

/// Writes `content` over `path`'s own bytes (created when missing), cuts
/// it to that length, sets `mode` and fsyncs it: the inode stays, so a bind
/// mount on it does too, but a crash midway leaves the file torn (the
/// caller keeps a copy to recover from). Never throws.
write_result rewrite_file_in_place(const std::string& path, unsigned mode,
                                   std::string_view content);

/// fsyncs directory `dir` (a name added or removed in it is durable).
void sync_directory(const std::string& dir);

/// Appends `content` to `path` (created with `mode` when missing) with
/// O_APPEND and fsyncs it: "" or the error ("cannot write /x: ..."). Never
/// throws.
std::string append_file_synced(const std::string& path,
                               std::string_view content, unsigned mode);

} // namespace nb

// The inbox journal on disk: one append-only file under <home>/inbox, held
// under an exclusive lock for the life of the process. Blocking calls: used
// only by the inbox's detached worker.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <caf/error.hpp>
#include <caf/expected.hpp>

namespace nb::inbox {

class journal_file {
public:
  journal_file() = default;
  journal_file(const journal_file&) = delete;
  journal_file& operator=(const journal_file&) = delete;
  ~journal_file();

  /// Locks and opens <dir>/journal (journal.1, journal.2 ... when another
  /// running gateway holds the lock) and returns its valid part. A torn
  /// last record is cut off; a damaged one is first copied aside to
  /// journal.damaged-<ms> so nothing written is lost.
  caf::expected<std::string> open(const std::string& dir);

  /// Appends `bytes`; with `sync` they are on disk (fdatasync) on return.
  /// A failed write is cut off again, so the file stays a valid journal.
  caf::error append(std::string_view bytes, bool sync);

  /// Replaces the journal with `bytes` (temp file, fsync, rename, directory
  /// fsync): the compaction.
  caf::error replace(std::string_view bytes);

  /// Appends `line` to <dir>/`name` and fsyncs it (messages given up on).
  caf::error keep(const std::string& name, std::string_view line);

  const std::string& path() const { return path_; }
  int64_t size() const { return size_; }

private:
  int fd_ = -1;
  int lock_fd_ = -1;
  int64_t size_ = 0;
  std::string dir_;
  std::string path_;
};

} // namespace nb::inbox

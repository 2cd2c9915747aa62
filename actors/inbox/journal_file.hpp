// The inbox journal on disk: one append-only file under <home>/inbox, held
// under an exclusive lock for the life of the process. Blocking calls: used
// only by the inbox's detached worker.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

namespace nb::inbox {

/// The journal of a gateway that stopped while another kept its own name:
/// found at start, delivered by the gateway that starts next.
struct orphan_journal {
  std::string path;
  std::string bytes; ///< its valid part
};

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

  /// After open(): locks every other journal under the directory that no
  /// running gateway holds (one that ran beside a gateway on this home and
  /// stopped) and returns what each holds. They stay locked, and in place,
  /// until retire_orphans(); a damaged one is copied aside first, as by
  /// open().
  caf::expected<std::vector<orphan_journal>> adopt_orphans();

  /// Removes the adopted journals (their entries are in this one now).
  caf::error retire_orphans();

  bool has_orphans() const { return !orphans_.empty(); }

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
  struct held {
    std::string path;
    int lock_fd;
  };
  std::vector<held> orphans_;
  int fd_ = -1;
  int lock_fd_ = -1;
  int64_t size_ = 0;
  std::string dir_;
  std::string path_;
};

} // namespace nb::inbox

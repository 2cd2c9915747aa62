// The jobs file on disk: <workspace>/cron/jobs.json. Every change is a
// read-modify-write under an exclusive lock (flock on jobs.json.lock), so
// the gateway, `nanobot agent` and `nanobot cron` can share it. Writes are
// atomic (temp file, fsync, rename, directory fsync). A file that cannot be
// read is renamed aside (jobs.json.corrupt-<ms>) and reported, never
// overwritten. Blocking: call from a detached actor or a plain thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actors/cron/job.hpp"

namespace nb::cron {

struct job_list {
  std::vector<job> jobs;
  /// Non-empty: what went wrong reading the file (set aside, jobs lost or
  /// recovered) — for the log and for the user.
  std::vector<std::string> problems;
};

class job_store {
public:
  /// `dir` is <workspace>/cron (created on first write).
  explicit job_store(std::string dir);

  const std::string& dir() const {
    return dir_;
  }
  std::string file() const {
    return dir_ + "/jobs.json";
  }

  /// Reads the jobs under the lock. A corrupt file is set aside first.
  job_list read();

  /// Locks, reads, lets `change` edit the jobs, and writes them back when
  /// it returns true. Returns "" or the write error.
  std::string update(const std::function<bool(job_list&)>& change);

  /// An identity of the file's current content (inode, size, mtime), to
  /// notice changes made by others without reading it.
  std::string stamp() const;

private:
  job_list load_locked();
  std::string save_locked(const std::vector<job>& jobs);
  std::string dir_;
};

} // namespace nb::cron

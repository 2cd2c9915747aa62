// The jobs file on disk: <workspace>/cron/jobs.json. Every change is a
// read-modify-write under an exclusive lock: flock on <workspace>/cron.lock,
// the lock the original nanobot takes around cron/action.jsonl, so the
// gateway, `nanobot agent`, `nanobot cron` and the original's processes all
// exclude each other. Every read first merges cron/action.jsonl, the queue
// of changes the original's `agent` leaves when no gateway runs (add,
// update, del lines), into jobs.json and empties it. Writes are
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
  /// The original's queue of job changes made while no gateway ran.
  std::string actions_file() const {
    return dir_ + "/action.jsonl";
  }
  /// <workspace>/cron.lock (a sibling of the cron folder, as the original
  /// names it).
  std::string lock_file() const {
    return dir_ + ".lock";
  }

  /// Reads the jobs under the lock. A corrupt file is set aside first.
  job_list read();

  /// Locks, reads, lets `change` edit the jobs, and writes them back when
  /// it returns true. Returns "" or the write error.
  std::string update(const std::function<bool(job_list&)>& change);

  /// An identity of the files' current content (inode, size, mtime of
  /// jobs.json and action.jsonl), to notice changes made by others without
  /// reading them.
  std::string stamp() const;

private:
  job_list load_locked();
  std::string save_locked(const std::vector<job>& jobs);
  /// Applies action.jsonl to `list`; true when it held any line to apply
  /// (then the caller saves and clears it). Bad lines are kept aside.
  bool merge_actions(job_list& list);
  std::string save_merged_locked(const job_list& list);
  std::string clear_actions_locked();
  std::string dir_;
};

} // namespace nb::cron

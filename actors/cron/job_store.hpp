// The jobs file on disk: <workspace>/cron/jobs.json, and cron/action.jsonl,
// the queue of changes made by processes that do not run the schedule.
// Everything happens under an exclusive flock on <workspace>/cron.lock, the
// lock the original nanobot takes around action.jsonl, so the gateway,
// `nanobot agent`, `nanobot cron` and the original's processes all exclude
// each other.
//
// Two roles, as in the original (nanobot/cron/service.py: a CronService
// persists only while it runs the schedule, `_should_persist_store`;
// otherwise `_append_action`):
// - the owner (the scheduler) merges the queue into jobs.json on every read
//   and empties it, and writes jobs.json;
// - a client (the cron tool, `nanobot cron`) reads jobs.json with the queue
//   merged in memory, and records its changes as queue lines ({"action":
//   "add"|"update"|"del", "params": the job in snake_case, or {"job_id"}}),
//   never writing jobs.json: so a running gateway of either program, which
//   keeps its jobs in memory and saves them without that lock, never loses
//   a change to a second writer of its file.
// Writes are atomic (temp file, fsync, rename, directory fsync). A file
// that cannot be read is renamed aside (jobs.json.corrupt-<ms>) and
// reported, never overwritten. Blocking: call from a detached actor or a
// plain thread.
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

enum class store_role {
  owner,  ///< runs the schedule: merges the queue, writes jobs.json
  client, ///< queues its changes in action.jsonl for the owner
};

class job_store {
public:
  /// `dir` is <workspace>/cron (created on first write).
  explicit job_store(std::string dir, store_role role = store_role::owner);

  store_role role() const {
    return role_;
  }

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

  /// Reads the jobs under the lock, the queue merged (and, for the owner,
  /// saved and emptied). A corrupt file is set aside first.
  job_list read();

  /// Locks, reads, lets `change` edit the jobs, and when it returns true
  /// writes them back (owner) or queues the difference (client). Returns ""
  /// or the write error.
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
  /// Appends the lines that turn `before` into `after` to action.jsonl.
  std::string queue_changes_locked(const std::vector<job>& before,
                                   const std::vector<job>& after);
  std::string dir_;
  store_role role_;
};

} // namespace nb::cron

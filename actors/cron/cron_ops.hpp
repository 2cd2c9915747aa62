// What users and the scheduler do with jobs, on top of the locked store:
// add, list, remove (shared by the cron tool and `nanobot cron`), and the
// scheduler's tick (which jobs are due now). Blocking file I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/cron/job_store.hpp"

namespace nb::cron {

/// A run found late by more than this (the gateway was down, the machine
/// slept) is recorded as skipped instead of run hours late.
inline constexpr int64_t missed_run_grace_ms = 15 * 60 * 1000;

struct add_request {
  std::string name;    ///< "" = the first 30 characters of the message
  std::string message;
  std::optional<int64_t> every_seconds;
  std::string cron_expr;
  std::string tz; ///< cron only; "" = the system's zone
  std::string at; ///< ISO date-time; without offset: wall clock in tz
  std::string session_key; ///< the session the job runs in
  std::string channel;     ///< where that session's chat lives
  std::string chat_id;
  nlohmann::json origin_metadata = nlohmann::json::object();
};

struct op_result {
  bool ok = false;
  std::string text; ///< the answer for the user or the model
  std::string job_id;
  std::vector<std::string> problems; ///< store trouble, for the log
};

/// The schedule `rq` asks for (exactly one of every_seconds, cron_expr and
/// at; tz only with cron_expr; at in the future), or why it is refused.
std::variant<schedule, std::string> schedule_of(const add_request& rq,
                                                int64_t now_ms);

op_result add_job(job_store& store, const add_request& rq, int64_t now_ms);
op_result list_jobs(job_store& store, int64_t now_ms);
op_result remove_job(job_store& store, const std::string& id);

/// What a scheduler tick found.
struct tick_result {
  std::vector<job> due;             ///< run these now (state already saved)
  std::vector<std::string> notes;   ///< skipped runs and store problems
  std::optional<int64_t> next_wake_ms; ///< earliest next run of any job
  std::string error;                ///< the store could not be written
};

/// Hands one due job on before its run is recorded: `slot_ms` is the run
/// time it is due for (the same again after a crash before the save, so a
/// journal can recognise the repeat). False: not handed on; the job stays
/// due for the next tick.
using fire_fn = std::function<bool(const job& j, int64_t slot_ms)>;

/// Finds the jobs due at `now_ms`, records their run and moves them on. A
/// job whose next run is unset gets one from its schedule; a run later than
/// `grace_ms` is recorded as skipped and the job moves to its next slot.
/// Without `fire`, the state is saved before the jobs run (a crash never
/// runs one twice, but may lose one); with it, each job is handed to `fire`
/// under the store's lock first (nothing is lost; a repeat after a crash
/// carries the same slot).
tick_result take_due(job_store& store, int64_t now_ms,
                     int64_t grace_ms = missed_run_grace_ms,
                     const fire_fn& fire = {});

/// The original's start-up reconciliation of its protected jobs: each job
/// in `install` replaces the stored one with its id (state reset, next run
/// one period from `now_ms`, payload kind "system_event"); each id in
/// `retire` is removed. Returns "" or the store's error.
std::string reconcile_system_jobs(job_store& store,
                                  const std::vector<job>& install,
                                  const std::vector<std::string>& retire,
                                  int64_t now_ms,
                                  std::vector<std::string>* notes = nullptr);

/// "every 2h", "cron: 0 9 * * * (Europe/Berlin)", "at 2026-...".
std::string describe_timing(const job& j);

} // namespace nb::cron

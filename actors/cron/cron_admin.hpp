// What the WebUI sees of and does to the jobs (issue 20, part 4): the jobs
// as the page lists them, and its add, update, pause, resume and remove.
// Called by the cron actor, the owner of the store, on its own thread
// (blocking file I/O under the store's lock).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/cron/job_store.hpp"

namespace nb::cron {

/// One job as the page shows it: schedule, time zone, next and last run
/// (epoch ms and ISO text in the job's zone), target chat, last outcome,
/// the last runs.
nlohmann::json job_view(const job& j);

/// cron_jobs_atom's answer: {"jobs": [...], "problems": [...]}.
std::string jobs_json(job_store& store);

/// The page's change `op` ("add", "update", "pause", "resume" or "remove")
/// of job `id` with `form` {name, message, kind ("every", "cron" or "at"),
/// every_seconds, cron_expr, tz, at, channel, chat_id}; jobs of `agent`.
/// Answers {"ok": true, "job": view} or {"ok": false, "error": why}.
/// Protected system jobs are refused (their schedule comes from config).
nlohmann::json edit_job(job_store& store, const std::string& op,
                        const std::string& id, const nlohmann::json& form,
                        int64_t now_ms, const std::string& agent);

/// Records a run asked for outside the schedule ("run now"): last run,
/// outcome and run history; the schedule is left as it is. "" or the
/// store's error.
std::string record_run(job_store& store, const std::string& id,
                       int64_t now_ms, const std::string& status,
                       const std::string& error);

} // namespace nb::cron

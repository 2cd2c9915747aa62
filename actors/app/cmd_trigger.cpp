// `nanobot trigger <job>`: run a cron job now, by id or name.
//
// The cron actor of the running gateway is the one writer of jobs.json, so
// this process asks it the way every other process does: it queues an
// update in cron/action.jsonl (under cron.lock) that makes the job due now.
// The scheduler merges the queue within seconds and runs the job as it runs
// any due job; a gateway of the original program does the same on its next
// timer. When a gateway answers, the command waits (--timeout, default 60 s)
// until jobs.json records the run and reports it.
//
// The original's `trigger <id> [message]` delivers a message to a "local
// trigger" made by its /trigger command (<workspace>/triggers/); this build
// has no local triggers, and says so when the word names none of the jobs
// but such a store exists.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "actors/app/commands.hpp"
#include "actors/app/gateway_instance.hpp"
#include "actors/app/load_config.hpp"
#include "actors/common/clock.hpp"
#include "actors/cron/cron_ops.hpp"
#include "actors/cron/schedule.hpp"

namespace nb {

namespace {

constexpr const char* trigger_usage =
  "Usage: nanobot trigger JOB [-c FILE] [-w DIR] [--timeout SECONDS]\n"
  "Runs the cron job JOB (its id or its name) now, through the running\n"
  "gateway's scheduler; without a gateway it runs when one starts.\n";

const cron::job* find_job(const std::vector<cron::job>& jobs,
                          const std::string& word, std::string& problem) {
  for (auto& j : jobs)
    if (j.id == word)
      return &j;
  const cron::job* found = nullptr;
  for (auto& j : jobs)
    if (j.name == word) {
      if (found) {
        problem = "several jobs are named '" + word + "' (ids " + found->id
                  + ", " + j.id + "): name one by its id";
        return nullptr;
      }
      found = &j;
    }
  return found;
}

const cron::job* job_by_id(const std::vector<cron::job>& jobs,
                           const std::string& id) {
  for (auto& j : jobs)
    if (j.id == id)
      return &j;
  return nullptr;
}

} // namespace

int cmd_trigger(const options& opts) {
  if (opts.positionals.size() != 1)
    return usage_error("trigger", trigger_usage,
                       opts.positionals.empty()
                         ? "which job? (an id or a name)"
                         : "the original's message argument is for its "
                           "local triggers, which this build does not have");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  const auto& word = opts.positionals[0];
  auto ws = cfg->workspace_path();
  cron::job_store store{ws + "/cron", cron::store_role::client};
  auto list = store.read();
  for (auto& p : list.problems)
    std::cerr << "warning: " << p << "\n";
  std::string problem;
  auto* job = find_job(list.jobs, word, problem);
  if (!job) {
    if (!problem.empty()) {
      std::cerr << "nanobot trigger: " << problem << "\n";
      return 1;
    }
    std::vector<std::string> names;
    for (auto& j : list.jobs) {
      names.push_back(j.id);
      names.push_back(j.name);
    }
    std::cerr << "nanobot trigger: no cron job has the id or name '" << word
              << "'";
    if (auto near = closest_word(word, names); !near.empty())
      std::cerr << "; did you mean '" << near << "'?";
    std::cerr << " (`nanobot cron list` shows them)\n";
    std::error_code ec;
    if (std::filesystem::exists(ws + "/triggers/triggers.json", ec))
      std::cerr << "The original's local triggers (" << ws
                << "/triggers, made by its /trigger command) are not "
                   "supported by this build.\n";
    return 1;
  }
  if (!job->enabled) {
    std::cerr << "nanobot trigger: job '" << job->name << "' (" << job->id
              << ") is paused; resume it first (WebUI or cron tool)\n";
    return 1;
  }
  auto id = job->id;
  auto name = job->name;
  auto queued_ms = unix_ms();
  auto err = store.update([&](cron::job_list& l) {
    for (auto& j : l.jobs)
      if (j.id == id) {
        j.next_run_at_ms = queued_ms;
        return true;
      }
    return false;
  });
  if (!err.empty()) {
    std::cerr << "nanobot trigger: cannot queue the run: " << err << "\n";
    return 1;
  }
  std::cout << "Queued job '" << name << "' (" << id << ") to run now.\n"
            << std::flush;
  auto inst = gateway_instance_for(opts);
  auto st = gateway_status_of(inst, *cfg);
  if (!st.running) {
    std::cout << "No gateway is running: the job runs when one starts (if "
                 "that is within "
              << cron::missed_run_grace_ms / 60000
              << " minutes; later, the run counts as missed).\n";
    return 0;
  }
  int wait_s = opts.timeout_s.value_or(60);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(wait_s);
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto now = store.read();
    auto* j = job_by_id(now.jobs, id);
    if (!j) {
      // A one-shot job that deletes itself after its run.
      std::cout << "Job '" << name << "' ran and was removed (run once).\n";
      return 0;
    }
    if (j->last_run_at_ms >= queued_ms) {
      std::cout << "Job '" << name << "' started at "
                << cron::format_iso(j->last_run_at_ms, j->schedule.tz) << ": "
                << (j->last_status.empty() ? "ok" : j->last_status)
                << (j->last_error.empty() ? "" : " (" + j->last_error + ")")
                << "\n";
      return j->last_status == "error" ? 1 : 0;
    }
  }
  std::cerr << "The gateway has not run the job within " << wait_s
            << " s; it stays queued (cron/action.jsonl).\n";
  return 1;
}

} // namespace nb

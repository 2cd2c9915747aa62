#include "actors/cron/cron_ops.hpp"

#include <algorithm>
#include <random>

#include "actors/cron/time_zone.hpp"

namespace nb::cron {

namespace {

std::string new_id() {
  std::random_device rd;
  std::uniform_int_distribution<int> hex(0, 15);
  std::string id;
  for (int k = 0; k < 8; ++k)
    id += "0123456789abcdef"[hex(rd)];
  return id;
}

std::string utf8_prefix(const std::string& s, size_t chars) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
      continue;
    if (n++ == chars)
      return s.substr(0, i);
  }
  return s;
}

op_result refuse(std::string why) {
  op_result r;
  r.text = "Error: " + std::move(why);
  return r;
}

std::string duration_text(int64_t ms) {
  if (ms % 3'600'000 == 0)
    return std::to_string(ms / 3'600'000) + "h";
  if (ms % 60'000 == 0)
    return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0)
    return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

std::string zone_label(const std::string& tz) {
  return tz.empty() ? system_zone_name() : tz;
}

} // namespace

std::string describe_timing(const job& j) {
  auto& s = j.schedule;
  if (s.kind == "every")
    return "every " + duration_text(s.every_ms);
  if (s.kind == "cron")
    return "cron: " + s.expr + " (" + zone_label(s.tz) + ")";
  return "at " + format_iso(s.at_ms, s.tz) + " (" + zone_label(s.tz) + ")";
}

std::variant<schedule, std::string> schedule_of(const add_request& rq,
                                                int64_t now_ms) {
  int kinds = rq.every_seconds.has_value() + !rq.cron_expr.empty()
              + !rq.at.empty();
  if (kinds != 1)
    return std::string{"give exactly one of every_seconds, cron_expr or at"};
  if (!rq.tz.empty() && rq.cron_expr.empty())
    return std::string{"tz can only be used with cron_expr"};
  if (rq.every_seconds) {
    if (*rq.every_seconds <= 0)
      return std::string{"every_seconds must be a positive number of seconds"};
    return schedule{"every", 0, *rq.every_seconds * 1000, "", ""};
  }
  if (!rq.cron_expr.empty()) {
    auto tz = rq.tz.empty() ? system_zone_name() : rq.tz;
    schedule s{"cron", 0, 0, rq.cron_expr, tz};
    if (auto bad = validate(s); !bad.empty())
      return bad;
    return s;
  }
  auto tz = system_zone_name();
  std::string err;
  auto at = parse_iso(rq.at, tz, &err);
  if (!at)
    return "at: " + err;
  if (*at <= now_ms)
    return "at: " + format_iso(*at, tz) + " is in the past";
  return schedule{"at", *at, 0, "", tz};
}

op_result add_job(job_store& store, const add_request& rq, int64_t now_ms) {
  if (rq.message.empty())
    return refuse("message is required to add a job");
  if (rq.session_key.empty() || rq.channel.empty())
    return refuse("scheduled cron jobs must be created from a chat session");
  auto sched = schedule_of(rq, now_ms);
  if (auto* why = std::get_if<std::string>(&sched))
    return refuse(*why);
  job j;
  j.id = new_id();
  j.name = rq.name.empty() ? utf8_prefix(rq.message, 30) : rq.name;
  j.message = rq.message;
  j.session_key = rq.session_key;
  j.origin_channel = rq.channel;
  j.origin_chat_id = rq.chat_id;
  j.origin_metadata = rq.origin_metadata.is_object()
                        ? rq.origin_metadata
                        : nlohmann::json::object();
  j.created_at_ms = j.updated_at_ms = now_ms;
  j.schedule = std::get<schedule>(sched);
  j.delete_after_run = j.schedule.kind == "at";
  auto next = next_run(j.schedule, now_ms, j.created_at_ms);
  if (!next)
    return refuse("the schedule never fires (" + describe_timing(j) + ")");
  j.next_run_at_ms = *next;
  op_result out;
  auto werr = store.update([&](job_list& list) {
    out.problems = list.problems;
    list.jobs.push_back(j);
    return true;
  });
  if (!werr.empty()) {
    out.problems.push_back(werr);
    return refuse("the job could not be saved: " + werr);
  }
  out.ok = true;
  out.job_id = j.id;
  out.text = "Created job '" + j.name + "' (id: " + j.id + ")";
  return out;
}

op_result list_jobs(job_store& store, int64_t now_ms) {
  auto list = store.read();
  op_result out;
  out.ok = true;
  out.problems = list.problems;
  if (list.jobs.empty()) {
    out.text = "No scheduled jobs.";
  } else {
    out.text = "Scheduled jobs:";
    for (auto& j : list.jobs) {
      out.text += "\n- " + j.name + " (id: " + j.id + ", "
                  + describe_timing(j) + ")";
      if (!j.enabled)
        out.text += " [disabled]";
      if (j.payload_kind == "system_event")
        out.text += "\n  Protected: visible for inspection, but cannot be "
                    "removed.";
      if (j.enabled && j.next_run_at_ms > 0)
        out.text += "\n  Next run: " + format_iso(j.next_run_at_ms,
                                                  j.schedule.tz);
      if (j.last_run_at_ms > 0) {
        out.text += "\n  Last run: " + format_iso(j.last_run_at_ms,
                                                  j.schedule.tz)
                    + " (" + (j.last_status.empty() ? "?" : j.last_status);
        if (!j.last_error.empty())
          out.text += ": " + j.last_error;
        out.text += ")";
      }
    }
  }
  (void) now_ms;
  for (auto& p : list.problems)
    out.text += "\nWarning: " + p;
  return out;
}

op_result remove_job(job_store& store, const std::string& id) {
  if (id.empty())
    return refuse("job_id is required to remove a job");
  op_result out;
  bool found = false, protected_job = false;
  auto werr = store.update([&](job_list& list) {
    out.problems = list.problems;
    auto it = std::find_if(list.jobs.begin(), list.jobs.end(),
                           [&](const job& j) { return j.id == id; });
    if (it == list.jobs.end())
      return false;
    found = true;
    if (it->payload_kind == "system_event") {
      protected_job = true;
      return false;
    }
    list.jobs.erase(it);
    return true;
  });
  if (!werr.empty())
    return refuse("the job could not be removed: " + werr);
  if (protected_job)
    return refuse("Cannot remove job " + id + ": it is a protected system job");
  out.ok = found;
  out.text = found ? "Removed job " + id : "Job " + id + " not found";
  return out;
}

tick_result take_due(job_store& store, int64_t now_ms, int64_t grace_ms,
                     const fire_fn& fire) {
  tick_result out;
  auto werr = store.update([&](job_list& list) {
    out.notes = list.problems;
    bool changed = !list.problems.empty();
    std::vector<std::string> finished; // one-shot jobs to delete
    for (auto& j : list.jobs) {
      if (!j.enabled)
        continue;
      auto anchor = j.created_at_ms > 0 ? j.created_at_ms : now_ms;
      if (j.next_run_at_ms <= 0) {
        // No next run on record: a past one-shot that never ran is due
        // (late); anything else gets its next slot.
        if (j.schedule.kind == "at" && j.last_run_at_ms == 0
            && j.schedule.at_ms > 0)
          j.next_run_at_ms = j.schedule.at_ms;
        else
          j.next_run_at_ms = next_run(j.schedule, now_ms, anchor).value_or(0);
        changed = true;
        if (j.next_run_at_ms <= 0) {
          j.enabled = false;
          j.last_status = "error";
          j.last_error = "the schedule has no future run";
          continue;
        }
      }
      if (j.next_run_at_ms > now_ms)
        continue;
      auto late = now_ms - j.next_run_at_ms;
      if (late <= grace_ms && fire && !fire(j, j.next_run_at_ms))
        continue; // not handed on: still due at the next tick
      changed = true;
      j.last_run_at_ms = now_ms;
      j.updated_at_ms = now_ms;
      if (late <= grace_ms) {
        j.last_status = "ok";
        j.last_error.clear();
        add_run(j, {now_ms, "ok", 0, ""});
        out.due.push_back(j);
      } else {
        j.last_status = "skipped";
        j.last_error = "missed the run at "
                       + format_iso(j.next_run_at_ms, j.schedule.tz) + " by "
                       + std::to_string(late / 60000)
                       + " min (more than the grace period)";
        add_run(j, {now_ms, "skipped", 0, j.last_error});
        out.notes.push_back("job '" + j.name + "' (" + j.id + ") "
                            + j.last_error);
      }
      if (j.schedule.kind == "at") {
        j.next_run_at_ms = 0;
        j.enabled = false;
        if (j.delete_after_run && late <= grace_ms)
          finished.push_back(j.id);
      } else {
        // From now, not from the missed slot: no burst of catch-up runs.
        j.next_run_at_ms = next_run(j.schedule, now_ms, anchor).value_or(0);
      }
    }
    for (auto& id : finished)
      list.jobs.erase(std::remove_if(list.jobs.begin(), list.jobs.end(),
                                     [&](const job& j) { return j.id == id; }),
                      list.jobs.end());
    for (auto& j : list.jobs)
      if (j.enabled && j.next_run_at_ms > 0
          && (!out.next_wake_ms || j.next_run_at_ms < *out.next_wake_ms))
        out.next_wake_ms = j.next_run_at_ms;
    return changed;
  });
  if (!werr.empty()) {
    // Not saved: running them could repeat them after a restart.
    out.error = werr;
    out.due.clear();
  }
  return out;
}

std::string reconcile_system_jobs(job_store& store,
                                  const std::vector<job>& install,
                                  const std::vector<std::string>& retire,
                                  int64_t now_ms,
                                  std::vector<std::string>* notes) {
  if (install.empty() && retire.empty())
    return "";
  return store.update([&](job_list& list) {
    if (notes)
      *notes = list.problems;
    bool changed = !list.problems.empty();
    auto drop = [&](const std::string& id) {
      auto before = list.jobs.size();
      list.jobs.erase(std::remove_if(list.jobs.begin(), list.jobs.end(),
                                     [&](const job& j) { return j.id == id; }),
                      list.jobs.end());
      return list.jobs.size() != before;
    };
    for (auto& id : retire)
      changed = drop(id) || changed;
    for (auto j : install) {
      drop(j.id);
      j.payload_kind = "system_event";
      j.enabled = true;
      j.created_at_ms = now_ms;
      j.updated_at_ms = now_ms;
      j.next_run_at_ms = next_run(j.schedule, now_ms, now_ms).value_or(0);
      j.last_run_at_ms = 0;
      j.last_status.clear();
      j.last_error.clear();
      j.run_history.clear();
      list.jobs.push_back(std::move(j));
      changed = true;
    }
    return changed;
  });
}

} // namespace nb::cron

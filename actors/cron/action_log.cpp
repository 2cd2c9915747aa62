// cron/action.jsonl: the original nanobot's queue of job changes. Its
// `agent` command (and its cron tool outside a running gateway) appends
// {"action": "add"|"update"|"del", "params": ...} lines under cron.lock;
// the process that owns the schedule merges them into jobs.json and empties
// the file. `params` of add/update is a whole job in snake_case (Python's
// asdict); `del` names {"job_id"}. Our clients queue the same lines.
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include "actors/common/clock.hpp"
#include "actors/cron/job_store.hpp"
#include "config/atomic_file.hpp"

namespace nb::cron {

namespace {

using json = nlohmann::json;

/// Applies one line; "" when it was applied, else why it was not.
std::string apply_action(std::vector<job>& jobs, const json& action) {
  auto find = [&](const std::string& id) {
    for (auto it = jobs.begin(); it != jobs.end(); ++it)
      if (it->id == id)
        return it;
    return jobs.end();
  };
  auto what = action.value("action", std::string{});
  auto params = action.find("params");
  if (params == action.end() || !params->is_object())
    return "no params object";
  if (what == "del") {
    auto id = params->value("job_id", std::string{});
    if (id.empty())
      return "del without a job_id";
    auto it = find(id);
    if (it == jobs.end())
      return ""; // already gone: nothing to do
    if (it->payload_kind == "system_event")
      return "job " + id + " is a protected system job";
    jobs.erase(it);
    return "";
  }
  std::string err;
  auto parsed = job_from_json(*params, &err);
  if (!parsed)
    return err;
  auto it = find(parsed->id);
  if (it == jobs.end()) {
    jobs.push_back(std::move(*parsed));
    return "";
  }
  // A protected job only changes into another protected job.
  if (it->payload_kind == "system_event"
      && parsed->payload_kind != "system_event")
    return "job " + parsed->id + " is a protected system job";
  *it = std::move(*parsed);
  return "";
}

/// A payload key we keep but do not use, under either spelling.
json extra(const job& j, const char* camel, const char* snake, json fallback) {
  for (auto* k : {camel, snake})
    if (auto i = j.payload_extra.find(k);
        i != j.payload_extra.end() && !i->is_null())
      return *i;
  return fallback;
}

/// The job as Python's dataclasses.asdict(CronJob) spells it: exactly the
/// dataclass fields (nanobot/cron/types.py), since the original builds the
/// job back with CronPayload(**params) and friends, which refuse any other
/// key.
json asdict(const job& j) {
  auto& s = j.schedule;
  json history = json::array();
  for (auto& r : j.run_history)
    history.push_back({{"run_at_ms", r.run_at_ms},
                       {"status", r.status},
                       {"duration_ms", r.duration_ms},
                       {"error", text_or_null(r.error)}});
  return {
    {"id", j.id},
    {"name", j.name},
    {"enabled", j.enabled},
    {"schedule",
     {{"kind", s.kind},
      {"at_ms", s.kind == "at" ? ms_or_null(s.at_ms) : json(nullptr)},
      {"every_ms", s.kind == "every" ? ms_or_null(s.every_ms) : json(nullptr)},
      {"expr", s.kind == "cron" ? json(s.expr) : json(nullptr)},
      {"tz", text_or_null(s.tz)}}},
    {"payload",
     {{"kind", j.payload_kind},
      {"message", j.message},
      {"deliver", extra(j, "deliver", "deliver", false)},
      {"channel", extra(j, "channel", "channel", nullptr)},
      {"to", extra(j, "to", "to", nullptr)},
      {"channel_meta", extra(j, "channelMeta", "channel_meta", json::object())},
      {"session_key", text_or_null(j.session_key)},
      {"origin_channel", text_or_null(j.origin_channel)},
      {"origin_chat_id", text_or_null(j.origin_chat_id)},
      {"origin_metadata", j.origin_metadata.is_object() ? j.origin_metadata
                                                         : json::object()}}},
    {"state",
     {{"next_run_at_ms", ms_or_null(j.next_run_at_ms)},
      {"last_run_at_ms", ms_or_null(j.last_run_at_ms)},
      {"last_status", text_or_null(j.last_status)},
      {"last_error", text_or_null(j.last_error)},
      {"run_history", history}}},
    {"created_at_ms", j.created_at_ms},
    {"updated_at_ms", j.updated_at_ms},
    {"delete_after_run", j.delete_after_run},
  };
}

const job* find_id(const std::vector<job>& jobs, const std::string& id) {
  for (auto& j : jobs)
    if (j.id == id)
      return &j;
  return nullptr;
}

} // namespace

std::string job_store::queue_changes_locked(const std::vector<job>& before,
                                            const std::vector<job>& after) {
  std::string lines;
  auto line = [&](const char* action, json params) {
    lines += json{{"action", action}, {"params", std::move(params)}}.dump(
               -1, ' ', false, json::error_handler_t::replace)
             + "\n";
  };
  for (auto& old : before)
    if (!find_id(after, old.id))
      line("del", {{"job_id", old.id}});
  for (auto& now : after) {
    auto* old = find_id(before, now.id);
    if (!old)
      line("add", asdict(now));
    else if (to_json(*old) != to_json(now))
      line("update", asdict(now));
  }
  if (lines.empty())
    return "";
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  return append_file_synced(actions_file(), lines, 0600);
}

bool job_store::merge_actions(job_list& list) {
  std::ifstream in{actions_file(), std::ios::binary};
  if (!in)
    return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  auto text = buf.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return false;
  std::istringstream lines{text};
  std::string line;
  int bad = 0;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    auto action = json::parse(line, nullptr, false);
    std::string why;
    if (action.is_discarded() || !action.is_object())
      why = "not a JSON object";
    else if (!action.contains("action"))
      continue; // the original skips these silently too
    else
      why = apply_action(list.jobs, action);
    if (!why.empty()) {
      ++bad;
      list.problems.push_back(actions_file() + ": a line was not applied ("
                              + why + ")");
    }
  }
  if (bad > 0 && role_ == store_role::owner) {
    // The file is emptied after the merge: keep its bytes for the user.
    auto aside = actions_file() + ".rejected-" + std::to_string(unix_ms());
    std::ofstream out{aside, std::ios::binary};
    out << text;
    list.problems.push_back(std::to_string(bad) + " line(s) of "
                            + actions_file() + " kept in " + aside);
  }
  return true;
}

std::string job_store::clear_actions_locked() {
  int fd = ::open(actions_file().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? "" : "cannot empty " + actions_file();
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok ? "" : "cannot empty " + actions_file();
}

} // namespace nb::cron

// cron/action.jsonl: the original nanobot's queue of job changes. Its
// `agent` command (and its cron tool outside a running gateway) appends
// {"action": "add"|"update"|"del", "params": ...} lines under cron.lock;
// the process that owns the schedule merges them into jobs.json and empties
// the file. `params` of add/update is a whole job in snake_case (Python's
// asdict); `del` names {"job_id"}.
#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include "actors/common/clock.hpp"
#include "actors/cron/job_store.hpp"

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

} // namespace

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
  if (bad > 0) {
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

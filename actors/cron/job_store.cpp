#include "actors/cron/job_store.hpp"

#include "actors/common/clock.hpp"
#include "actors/common/file_lock.hpp"
#include "config/atomic_file.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nb::cron {

namespace {

using json = nlohmann::json;

std::string os_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

} // namespace

job_store::job_store(std::string dir, store_role role)
    : dir_(std::move(dir)), role_(role) {}

std::string job_store::stamp() const {
  auto one = [](const std::string& path) -> std::string {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
      return "none";
    return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":"
           + std::to_string(st.st_mtim.tv_sec) + "."
           + std::to_string(st.st_mtim.tv_nsec);
  };
  return one(file()) + "|" + one(actions_file());
}

job_list job_store::load_locked() {
  job_list out;
  std::ifstream in{file(), std::ios::binary};
  if (!in)
    return out; // no file yet: no jobs
  std::ostringstream buf;
  buf << in.rdbuf();
  auto text = buf.str();
  in.close();
  json doc = json::parse(text, nullptr, false);
  std::vector<std::string> bad;
  if (doc.is_discarded() || !doc.is_object()) {
    bad.push_back("the file is not a JSON object");
  } else if (auto j = doc.find("jobs"); j == doc.end() || !j->is_array()) {
    bad.push_back("\"jobs\" is missing or not a list");
  } else {
    for (auto& item : *j) {
      std::string err;
      if (auto parsed = job_from_json(item, &err))
        out.jobs.push_back(std::move(*parsed));
      else
        bad.push_back(err);
    }
  }
  if (bad.empty())
    return out;
  // Keep the original bytes: rename the file aside, then write back what
  // could be read, so nothing is ever silently dropped.
  auto aside = file() + ".corrupt-" + std::to_string(unix_ms());
  if (::rename(file().c_str(), aside.c_str()) != 0) {
    out.problems.push_back(os_error("cannot set aside the unreadable "
                                    + file()));
    return out;
  }
  std::string what;
  for (auto& b : bad)
    what += (what.empty() ? "" : "; ") + b;
  out.problems.push_back(file() + " could not be read fully (" + what
                         + "); the original is kept as " + aside + " and "
                         + std::to_string(out.jobs.size())
                         + " readable job(s) were kept");
  if (auto err = save_locked(out.jobs); !err.empty())
    out.problems.push_back(err);
  return out;
}

std::string job_store::save_locked(const std::vector<job>& jobs) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  json arr = json::array();
  for (auto& j : jobs)
    arr.push_back(to_json(j));
  auto text = json{{"version", 1}, {"jobs", arr}}.dump(
    2, ' ', false, json::error_handler_t::replace) + "\n";
  return replace_file_atomic(file(), text, 0600).error;
}

job_list job_store::read() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  file_lock lock{lock_file()};
  auto list = load_locked();
  if (merge_actions(list) && role_ == store_role::owner)
    if (auto err = save_merged_locked(list); !err.empty())
      list.problems.push_back(err);
  return list;
}

std::string job_store::update(const std::function<bool(job_list&)>& change) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  file_lock lock{lock_file()};
  auto list = load_locked();
  bool merged = merge_actions(list);
  if (role_ == store_role::client) {
    auto before = list.jobs;
    if (!change(list))
      return "";
    return queue_changes_locked(before, list.jobs);
  }
  if (!change(list))
    return merged ? save_merged_locked(list) : "";
  if (auto err = save_locked(list.jobs); !err.empty())
    return err;
  return merged ? clear_actions_locked() : "";
}

std::string job_store::save_merged_locked(const job_list& list) {
  if (auto err = save_locked(list.jobs); !err.empty())
    return err;
  return clear_actions_locked();
}

} // namespace nb::cron

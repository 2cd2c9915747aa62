// Test support: the processes a test started, read from /proc (Linux), so
// tests can check that a killed command took its whole group with it.
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace nb::test {

/// One line of /proc/<pid>/stat, the fields tests need.
struct proc_entry {
  int pid = 0;
  int ppid = 0;
  int pgrp = 0;
  char state = '?'; ///< 'Z': a zombie (dead, not reaped yet)
  std::string comm;
};

/// Every process now, or the fields of one (pid 0 when it is gone).
inline proc_entry read_proc(int pid) {
  proc_entry e;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line))
    return e;
  auto open = line.find('(');
  auto close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos
      || close + 4 >= line.size())
    return e;
  e.pid = pid;
  e.comm = line.substr(open + 1, close - open - 1);
  e.state = line[close + 2];
  auto rest = line.substr(close + 4);
  e.ppid = std::atoi(rest.c_str());
  auto sp = rest.find(' ');
  if (sp != std::string::npos)
    e.pgrp = std::atoi(rest.c_str() + sp + 1);
  return e;
}

inline std::vector<proc_entry> all_procs() {
  std::vector<proc_entry> out;
  std::error_code ec;
  for (auto& d : std::filesystem::directory_iterator("/proc", ec)) {
    auto name = d.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    auto e = read_proc(std::atoi(name.c_str()));
    if (e.pid != 0)
      out.push_back(e);
  }
  return out;
}

/// `root` and every process in `procs` that descends from it.
inline std::set<int> family_of(int root, const std::vector<proc_entry>& procs) {
  std::set<int> family{root};
  // Parents may be listed after their children: repeat until stable.
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& p : procs)
      if (family.count(p.ppid) && family.insert(p.pid).second)
        grew = true;
  }
  return family;
}

/// Live (not zombie) processes named `comm` that descend from `root` (this
/// test process by default): what an exec started, grandchildren included,
/// also inside a sandbox (its own session and PID namespace; /proc shows
/// host pids).
inline std::vector<int> descendants_named(const std::string& comm,
                                          int root = ::getpid()) {
  auto procs = all_procs();
  auto family = family_of(root, procs);
  std::vector<int> out;
  for (auto& p : procs)
    if (p.pid != root && family.count(p.pid) && p.comm == comm
        && p.state != 'Z')
      out.push_back(p.pid);
  return out;
}

/// Whether `pid` is gone (or a zombie: dead, waiting to be reaped).
inline bool proc_gone(int pid) {
  auto e = read_proc(pid);
  return e.pid == 0 || e.state == 'Z';
}

/// Waits (generously: only a process that never starts reaches the bound)
/// until `n` processes named `comm` run under this process's children;
/// returns the last ones seen (fewer than `n` when the wait ran out).
inline std::vector<int> wait_for_descendants(
  const std::string& comm, size_t n,
  std::chrono::milliseconds within = std::chrono::seconds(30)) {
  auto until = std::chrono::steady_clock::now() + within;
  auto pids = descendants_named(comm);
  while (pids.size() < n && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pids = descendants_named(comm);
  }
  return pids;
}

/// Whether every one of `pids` is gone within `within` (polled every 20 ms;
/// a generous bound: only a process left behind reaches it).
inline bool
all_gone(const std::vector<int>& pids,
         std::chrono::milliseconds within = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < until) {
    bool gone = true;
    for (auto p : pids)
      gone = gone && proc_gone(p);
    if (gone)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

/// The resident set size of `pid` in kB (VmRSS), -1 when it is gone.
inline long rss_kb(int pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stol(line.substr(6));
  return -1;
}

/// CPU time a process has used so far (user + system, all its threads), in
/// milliseconds; at the clock tick's resolution (10 ms), so benchmarks take
/// it over seconds of work.
inline double cpu_ms(int pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::string line;
  if (!std::getline(in, line))
    return -1;
  auto close = line.rfind(')');
  if (close == std::string::npos)
    return -1;
  // Fields after the command: state is field 3; utime and stime are 14, 15.
  std::istringstream rest{line.substr(close + 2)};
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i)
    if (i >= 14)
      ticks += std::stod(field);
  return ticks * 1000.0 / double(sysconf(_SC_CLK_TCK));
}

/// A process's threads: id -> name.
inline std::map<int, std::string> thread_ids(int pid) {
  std::map<int, std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(
         "/proc/" + std::to_string(pid) + "/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::ifstream in{it->path() / "comm"};
    std::string name;
    if (std::getline(in, name))
      out[std::atoi(it->path().filename().c_str())] = name;
  }
  return out;
}

/// A process's threads by name (/proc/<pid>/task/*/comm) and how many of
/// each: which kind of thread is there (the gateway names its own).
inline std::map<std::string, long> thread_names(int pid) {
  std::map<std::string, long> out;
  for (auto& [tid, name] : thread_ids(pid))
    ++out[name];
  return out;
}

/// Context switches (voluntary and involuntary) of thread `tid` of `pid`
/// so far: each one a sleep or a preemption (0 when it is gone).
inline long context_switches(int pid, int tid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/task/"
                   + std::to_string(tid) + "/status"};
  std::string key;
  long sum = 0;
  while (in >> key)
    if (key == "voluntary_ctxt_switches:"
        || key == "nonvoluntary_ctxt_switches:") {
      long value = 0;
      in >> value;
      sum += value;
    }
  return sum;
}

/// Context switches so far of all of `pid`'s threads named `name` (CAF's
/// workers share one: "caf.multiplexer").
inline long switches_of_threads(int pid, const std::string& name) {
  long sum = 0;
  for (auto& [tid, comm] : thread_ids(pid))
    if (comm == name)
      sum += context_switches(pid, tid);
  return sum;
}

} // namespace nb::test

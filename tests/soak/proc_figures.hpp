// The soak's per-sample process figures, read from /proc: resident set two
// ways, threads and open file descriptors.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <sys/types.h>

namespace nb::test {

struct proc_figures {
  long rss_kb = 0;       ///< VmRSS (/proc/<pid>/status)
  long rss_smaps_kb = 0; ///< Rss of /proc/<pid>/smaps_rollup, summed per page
  long threads = 0;
  long fds = 0;
};

inline proc_figures read_figures(pid_t pid) {
  proc_figures f;
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0)
      f.rss_kb = std::stol(line.substr(6));
    else if (line.rfind("Threads:", 0) == 0)
      f.threads = std::stol(line.substr(8));
  }
  // The kernel documents VmRSS as inexact (per-CPU counters); two soaks
  // disagreed with a per-minute smaps sum by 3 MB, so both are kept.
  std::ifstream rollup{"/proc/" + std::to_string(pid) + "/smaps_rollup"};
  while (std::getline(rollup, line))
    if (line.rfind("Rss:", 0) == 0) {
      f.rss_smaps_kb = std::stol(line.substr(4));
      break;
    }
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++f.fds;
  return f;
}

} // namespace nb::test

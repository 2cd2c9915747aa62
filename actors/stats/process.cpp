#include "actors/stats/process.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace nb {

namespace {

int64_t read_rss_bytes() {
  std::ifstream in{"/proc/self/statm"};
  int64_t size = 0;
  int64_t resident = 0;
  if (!(in >> size >> resident))
    return 0;
  return resident * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

int64_t read_threads() {
  std::ifstream in{"/proc/self/status"};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Threads:", 0) != 0)
      continue;
    std::istringstream value{line.substr(8)};
    int64_t n = 0;
    return value >> n ? n : 0;
  }
  return 0;
}

} // namespace

double process_uptime_s() {
  // Field 22 of /proc/self/stat is the start time in clock ticks after boot;
  // the command name (field 2) may hold spaces, so count from its ')'.
  std::ifstream stat{"/proc/self/stat"};
  std::string text{std::istreambuf_iterator<char>{stat}, {}};
  auto close = text.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream fields{text.substr(close + 2)};
  std::string field;
  for (int i = 3; i < 22 && fields >> field; ++i) {
    // skip fields 3..21
  }
  unsigned long long start_ticks = 0;
  if (!(fields >> start_ticks))
    return 0;
  std::ifstream up{"/proc/uptime"};
  double since_boot = 0;
  if (!(up >> since_boot))
    return 0;
  auto ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  auto uptime = since_boot - static_cast<double>(start_ticks) / ticks;
  return uptime > 0 ? uptime : 0;
}

process_figures read_process_figures() {
  return {process_uptime_s(), read_rss_bytes(), read_threads()};
}

} // namespace nb

// Figures about the whole process, read from /proc (Linux).
#pragma once

#include <cstdint>

namespace nb {

struct process_figures {
  double uptime_s = 0;   ///< since the process started
  int64_t rss_bytes = 0; ///< resident set size
  int64_t threads = 0;
};

/// Reads /proc/self/{statm,status,stat} and /proc/uptime; a figure that
/// cannot be read stays 0.
process_figures read_process_figures();

/// Seconds since this process started (from /proc; 0 if unreadable).
double process_uptime_s();

} // namespace nb

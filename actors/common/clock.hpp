// The two clocks every actor library reads, in milliseconds: the wall clock
// (times stored in files, compared across processes) and the steady clock
// (intervals within this process).
#pragma once

#include <chrono>
#include <cstdint>

namespace nb {

/// Milliseconds since the Unix epoch (system clock).
inline int64_t unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

/// Milliseconds on the steady clock (for intervals only).
inline int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch())
    .count();
}

} // namespace nb

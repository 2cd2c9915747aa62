#include "actors/common/iso_time.hpp"

#include <cstdio>
#include <ctime>

namespace nb {

std::string iso_at(std::chrono::system_clock::time_point at) {
  auto secs = std::chrono::system_clock::to_time_t(at);
  auto us =
    std::chrono::duration_cast<std::chrono::microseconds>(at.time_since_epoch())
      .count()
    % 1000000;
  std::tm tm{};
  ::localtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%06d", buf, static_cast<int>(us));
  return out;
}

std::string iso_now() {
  return iso_at(std::chrono::system_clock::now());
}

std::string iso_minus(std::chrono::milliseconds ago) {
  return iso_at(std::chrono::system_clock::now() - ago);
}

} // namespace nb

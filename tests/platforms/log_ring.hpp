// What an adapter logged, for tests that check a log line: a ring sink on
// the logger "channel.<name>", attached once per logger (the first call,
// before the adapter starts, so no thread logs meanwhile) and kept.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <spdlog/sinks/ringbuffer_sink.h>

#include "actors/common/log.hpp"

namespace nb::test {

class log_ring {
public:
  explicit log_ring(const std::string& logger) {
    static std::map<std::string,
                    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt>>
      rings;
    auto& r = rings[logger];
    if (!r) {
      r = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1024);
      nb::log::get(logger)->sinks().push_back(r);
    }
    ring_ = r;
  }

  /// Whether a line among the last 1024 holds every one of `parts` (waits
  /// up to `t` for it). Tests name their files uniquely.
  bool wait_line(std::initializer_list<std::string> parts,
                 std::chrono::milliseconds t = std::chrono::seconds(10)) {
    auto end = std::chrono::steady_clock::now() + t;
    do {
      auto lines = ring_->last_formatted();
      for (const auto& line : lines) {
        bool all = true;
        for (const auto& p : parts)
          all = all && line.find(p) != std::string::npos;
        if (all)
          return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < end);
    return false;
  }

private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> ring_;
};

} // namespace nb::test

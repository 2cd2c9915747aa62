// A stop request that loop threads can sleep on.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace nb::chan {

/// Set once by the owner; the loop thread checks it and sleeps on it.
class stop_flag {
public:
  bool stopping() const { return stop_.load(); }

  void request() {
    {
      std::lock_guard<std::mutex> g{mx_};
      stop_ = true;
    }
    cv_.notify_all();
  }

  /// Sleeps up to `d`; false when stop was requested (before or during).
  template <class Rep, class Period>
  bool sleep_for(std::chrono::duration<Rep, Period> d) {
    std::unique_lock<std::mutex> g{mx_};
    return !cv_.wait_for(g, d, [this] { return stop_.load(); });
  }

private:
  std::atomic<bool> stop_{false};
  std::mutex mx_;
  std::condition_variable cv_;
};

} // namespace nb::chan

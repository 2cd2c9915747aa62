// A stop request that loop threads can sleep on.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

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

  /// Waits 1, 2, 4 ... 30 s as `fails` grows (and counts it); false when
  /// stop was requested.
  bool back_off(int& fails) {
    return sleep_for(
      std::chrono::seconds(std::min(30, 1 << std::min(fails++, 5))));
  }

private:
  std::atomic<bool> stop_{false};
  std::mutex mx_;
  std::condition_variable cv_;
};

/// Ends a loop thread that may sit in a long poll: requests the stop, then
/// calls `abort` (which shuts the poll's socket) whenever `polling` says a
/// request is in flight — again and again, as the first abort may come
/// before the connect — until `done`, and joins `thread`.
inline void stop_long_poll(stop_flag& stop, const std::atomic<bool>& polling,
                           const std::atomic<bool>& done,
                           const std::function<void()>& abort,
                           std::thread& thread) {
  stop.request();
  while (!done.load()) {
    if (polling.load())
      abort();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  thread.join();
}

} // namespace nb::chan

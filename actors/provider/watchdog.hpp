// A deadline for a blocking call on another thread: when it passes (or a
// cancel flag turns true) the watchdog runs an abort action once.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace nb {

/// Owns one thread; arm() before a blocking call, disarm() after it.
class watchdog {
public:
  using clock = std::chrono::steady_clock;
  enum class reason { none, deadline, cancelled };

  /// `abort` runs on the watchdog thread while the call is armed (for an
  /// HTTP call: close its socket).
  watchdog(std::function<void()> abort,
           std::shared_ptr<const std::atomic<bool>> cancel);
  ~watchdog();

  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

  void arm(clock::time_point deadline);
  /// Moves the deadline of an armed call (a stream event arrived).
  void extend(clock::time_point deadline);
  /// Ends the armed call; returns why the abort ran, if it did. After this
  /// returns the abort action is not running and will not run.
  reason disarm();

  bool cancelled() const { return cancel_ && cancel_->load(); }

private:
  void loop();

  std::function<void()> abort_;
  std::shared_ptr<const std::atomic<bool>> cancel_;
  std::mutex mtx_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool quit_ = false;
  reason fired_ = reason::none;
  clock::time_point deadline_;
  /// When the thread's current wait ends by itself (max: it waits for a
  /// notify). arm() wakes it only for an earlier deadline: a call made
  /// while it still times the last one (at most the cancel poll's 50 ms
  /// later) needs no wake-up, a context switch per model call.
  clock::time_point waiting_until_ = clock::time_point::max();
  std::thread thread_;
};

} // namespace nb

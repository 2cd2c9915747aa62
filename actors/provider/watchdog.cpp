#include "actors/provider/watchdog.hpp"

namespace nb {

namespace {

/// How often an armed watchdog looks at the cancel flag.
constexpr auto cancel_poll = std::chrono::milliseconds{50};

} // namespace

watchdog::watchdog(std::function<void()> abort,
                   std::shared_ptr<const std::atomic<bool>> cancel)
  : abort_(std::move(abort)), cancel_(std::move(cancel)) {
  thread_ = std::thread{[this] { loop(); }};
}

watchdog::~watchdog() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void watchdog::arm(clock::time_point deadline) {
  bool wake;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    armed_ = true;
    fired_ = reason::none;
    deadline_ = deadline;
    // The thread holds the lock except while it waits: it is waiting now.
    wake = deadline < waiting_until_;
  }
  if (wake)
    cv_.notify_all();
}

void watchdog::extend(clock::time_point deadline) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (armed_)
    deadline_ = deadline;
}

watchdog::reason watchdog::disarm() {
  std::lock_guard<std::mutex> guard{mtx_};
  armed_ = false;
  auto r = fired_;
  fired_ = reason::none;
  return r;
}

void watchdog::loop() {
  std::unique_lock<std::mutex> lock{mtx_};
  while (!quit_) {
    if (!armed_) {
      waiting_until_ = clock::time_point::max();
      cv_.wait(lock);
      continue;
    }
    auto now = clock::now();
    auto why = cancelled()         ? reason::cancelled
               : now >= deadline_ ? reason::deadline
                                  : reason::none;
    if (why == reason::none) {
      auto wake = cancel_ ? std::min(deadline_, now + cancel_poll) : deadline_;
      waiting_until_ = wake;
      cv_.wait_until(lock, wake);
      continue;
    }
    // Still under the lock, so disarm() cannot return while this runs.
    fired_ = why;
    armed_ = false;
    abort_();
  }
}

} // namespace nb

// A thread of its own for the WebSocket server's blocking API work, so the
// io thread never waits on it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace nb::ws {

/// One thread running queued jobs in order (the API's blocking work).
class job_worker {
public:
  job_worker() : thread_([this] { run(); }) {}
  ~job_worker() { stop(); }

  void post(std::function<void()> job) {
    std::lock_guard<std::mutex> guard{mu_};
    if (!stopping_)
      jobs_.push_back(std::move(job));
    cv_.notify_one();
  }

  void stop() {
    {
      std::lock_guard<std::mutex> guard{mu_};
      stopping_ = true;
      jobs_.clear();
    }
    cv_.notify_one();
    if (thread_.joinable())
      thread_.join();
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock{mu_};
    while (true) {
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_)
        return;
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace nb::ws

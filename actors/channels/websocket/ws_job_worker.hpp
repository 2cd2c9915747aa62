// A thread of its own for the WebSocket server's blocking API work, so the
// io thread never waits on it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "actors/common/thread_name.hpp"

namespace nb::ws {

/// One thread running queued jobs in order (the API's blocking work). The
/// thread starts with the first job and ends after `idle_limit` without
/// one, so a WebUI nobody uses holds no thread for it (issue 22).
class job_worker {
public:
  explicit job_worker(
    std::chrono::milliseconds idle_limit = std::chrono::seconds(30))
    : idle_limit_(idle_limit) {}
  ~job_worker() { stop(); }

  void post(std::function<void()> job) {
    std::lock_guard<std::mutex> guard{mu_};
    if (stopping_)
      return;
    jobs_.push_back(std::move(job));
    if (running_) {
      cv_.notify_one();
      return;
    }
    // The previous thread has left run() (it cleared running_ under the
    // lock as its last step): joining it here is immediate.
    if (thread_.joinable())
      thread_.join();
    running_ = true;
    thread_ = std::thread([this] {
      name_thread("nb.ws-jobs");
      run();
    });
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

  /// Whether a thread is running now (tests).
  bool running() {
    std::lock_guard<std::mutex> guard{mu_};
    return running_;
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock{mu_};
    while (true) {
      cv_.wait_for(lock, idle_limit_,
                   [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_ || jobs_.empty()) {
        running_ = false;
        return;
      }
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  std::chrono::milliseconds idle_limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  bool running_ = false;
  std::thread thread_;
};

} // namespace nb::ws

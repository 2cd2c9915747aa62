// An httplib task queue whose worker threads follow the load: none (or a
// few) while idle, up to a maximum under load, a FIFO backlog beyond it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace nb {

/// A TaskQueue for httplib::Server that starts no thread up front, unlike
/// httplib::ThreadPool, so an idle front door costs almost no memory.
/// A task goes to the most recently idle worker (LIFO, so the others really
/// go idle and can expire); a new worker starts only when none is idle and
/// fewer than `max_threads` run; beyond that tasks wait in FIFO order.
/// A worker idle for `idle_timeout` exits while more than `min_threads`
/// remain. Exited workers are joined, never detached. Thread-safe, except
/// that shutdown() (or the destructor) must not race another shutdown().
class elastic_task_queue : public httplib::TaskQueue {
public:
  /// `max_threads` is at least 1; `min_threads` is capped at the maximum.
  /// The minimum is not started eagerly: it only stops idle expiry.
  explicit elastic_task_queue(
    size_t max_threads, size_t min_threads = 0,
    std::chrono::milliseconds idle_timeout = std::chrono::seconds{30});
  elastic_task_queue(const elastic_task_queue&) = delete;
  elastic_task_queue& operator=(const elastic_task_queue&) = delete;

  /// Calls shutdown().
  ~elastic_task_queue() override;

  /// Queues `fn`; dropped (destroyed unrun) once shutdown() has begun.
  void enqueue(std::function<void()> fn) override;

  /// Runs every task already queued, then returns only once each worker
  /// thread has ended and been joined, so its thread-local storage is gone
  /// too. Idempotent.
  void shutdown() override;

  /// Worker threads alive now (idle or busy).
  size_t threads() const;

  /// Worker threads waiting for a task now.
  size_t idle_threads() const;

  size_t max_threads() const { return max_; }
  size_t min_threads() const { return min_; }

private:
  /// One per waiting worker, on that worker's stack; enqueue() wakes the
  /// newest one.
  struct idle_slot {
    std::condition_variable cv;
    bool woken = false;
  };

  using worker_list = std::list<std::thread>;

  void work(worker_list::iterator self);
  bool wait_for_task(std::unique_lock<std::mutex>& lock);
  void retire(std::unique_lock<std::mutex>& lock, worker_list::iterator self);
  bool spawn_locked();
  static void run(std::function<void()>& task) noexcept;

  const size_t max_;
  const size_t min_;
  const std::chrono::milliseconds idle_timeout_;

  mutable std::mutex mutex_;
  std::deque<std::function<void()>> tasks_;
  std::vector<idle_slot*> idle_;
  worker_list workers_;
  /// Workers that expired and still need a join.
  std::vector<std::thread> finished_;
  size_t live_ = 0;
  bool stopping_ = false;
};

} // namespace nb

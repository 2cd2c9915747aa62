#include "actors/channels/http/elastic_task_queue.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "actors/common/log.hpp"

namespace nb {

elastic_task_queue::elastic_task_queue(size_t max_threads, size_t min_threads,
                                       std::chrono::milliseconds idle_timeout)
  : max_(std::max<size_t>(max_threads, 1)),
    min_(std::min(min_threads, max_)),
    idle_timeout_(idle_timeout) {
  // nop
}

elastic_task_queue::~elastic_task_queue() {
  shutdown();
}

void elastic_task_queue::enqueue(std::function<void()> fn) {
  std::vector<std::thread> expired;
  {
    std::unique_lock lock{mutex_};
    if (stopping_)
      return;
    tasks_.push_back(std::move(fn));
    if (!idle_.empty()) {
      auto* slot = idle_.back();
      idle_.pop_back();
      slot->woken = true;
      // Under the lock: once woken, the slot may leave the worker's stack.
      slot->cv.notify_one();
    } else if (live_ < max_ && !spawn_locked() && live_ == 0) {
      // No worker exists and none can start: running the task here beats
      // leaving it queued with nobody to ever pick it up.
      auto task = std::move(tasks_.back());
      tasks_.pop_back();
      lock.unlock();
      run(task);
      return;
    }
    expired.swap(finished_);
  }
  for (auto& t : expired)
    t.join();
}

void elastic_task_queue::shutdown() {
  worker_list running;
  std::vector<std::thread> expired;
  {
    std::lock_guard lock{mutex_};
    stopping_ = true;
    for (auto* slot : idle_) {
      slot->woken = true;
      slot->cv.notify_one();
    }
    idle_.clear();
    // Workers never touch the list once stopping_ is set (see retire()).
    running.swap(workers_);
    expired.swap(finished_);
  }
  // Busy workers drain the backlog first: its tasks own accepted sockets.
  for (auto& t : running)
    t.join();
  for (auto& t : expired)
    t.join();
  std::deque<std::function<void()>> left;
  {
    std::lock_guard lock{mutex_};
    left.swap(tasks_);
  }
  // Only non-empty when no worker could ever be started.
  for (auto& task : left)
    run(task);
}

size_t elastic_task_queue::threads() const {
  std::lock_guard lock{mutex_};
  return live_;
}

size_t elastic_task_queue::idle_threads() const {
  std::lock_guard lock{mutex_};
  return idle_.size();
}

void elastic_task_queue::work(worker_list::iterator self) {
  std::unique_lock lock{mutex_};
  for (;;) {
    if (!tasks_.empty()) {
      auto task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      run(task);
      task = nullptr; // captures die outside the lock
      lock.lock();
      continue;
    }
    if (stopping_)
      break;
    if (!wait_for_task(lock)) {
      retire(lock, self);
      return;
    }
  }
  --live_;
}

bool elastic_task_queue::wait_for_task(std::unique_lock<std::mutex>& lock) {
  idle_slot slot;
  idle_.push_back(&slot);
  auto woken = [&] { return slot.woken; };
  if (live_ <= min_) {
    slot.cv.wait(lock, woken);
    return true;
  }
  if (slot.cv.wait_for(lock, idle_timeout_, woken))
    return true;
  // Not woken, so still listed (enqueue and shutdown unlist what they wake).
  std::erase(idle_, &slot);
  return live_ <= min_;
}

void elastic_task_queue::retire(std::unique_lock<std::mutex>& lock,
                                worker_list::iterator self) {
  --live_;
  // stopping_ is false here: shutdown() would have woken our slot. Joining
  // the previous retiree keeps at most one unjoined thread around between
  // enqueues, and no thread ever joins itself or one that joins it.
  std::vector<std::thread> previous;
  previous.swap(finished_);
  finished_.push_back(std::move(*self));
  workers_.erase(self);
  lock.unlock();
  for (auto& t : previous)
    t.join();
}

bool elastic_task_queue::spawn_locked() {
  try {
    auto it = workers_.emplace(workers_.end());
    try {
      // The new thread needs the lock we hold, so it sees *it assigned.
      *it = std::thread{[this, it] { work(it); }};
    } catch (...) {
      workers_.erase(it);
      throw;
    }
    ++live_;
    return true;
  } catch (const std::exception& e) {
    nb::log::get("http")->warn("cannot start an HTTP worker thread ({}) "
                               "with {} running",
                               e.what(), live_);
    return false;
  }
}

void elastic_task_queue::run(std::function<void()>& task) noexcept {
  // An exception escaping a std::thread would terminate the process.
  try {
    task();
  } catch (const std::exception& e) {
    nb::log::get("http")->error("an HTTP task threw: {}", e.what());
  } catch (...) {
    nb::log::get("http")->error("an HTTP task threw a non-standard exception");
  }
}

} // namespace nb

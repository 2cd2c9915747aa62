// The gateway's scheduling policy: CAF's work sharing (one queue, workers
// asleep on a condition variable, so an idle gateway uses no CPU) without
// waking a second worker for every hand-off.
//
// With CAF's `sharing`, every actor made runnable is followed by a notify:
// when the session, running on worker A, sends to the runner, worker B is
// woken to run the runner while A finishes and goes to sleep, and the
// answer wakes A again. A plain turn made ~40 such wake-ups across the two
// workers (perf: 60 % of the gateway's CPU in the kernel, most of it in
// context switches). Here a job made runnable *by a worker* (exec_later,
// i.e. a message sent from an actor that worker is running) wakes a
// sleeping worker only when it is not the only job waiting: the sending
// worker takes it as soon as its current actor yields. Work from outside
// the workers (blocking threads, the clock, the HTTP threads) still wakes a
// sleeper at once.
//
// The cost: a job handed off this way waits for the rest of its sender's
// run, as it would on a single worker. Handlers here are short (blocking
// work goes to threads of its own), and any further job, or anything from
// outside, wakes a sleeper that takes it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>

#include <caf/actor_system_config.hpp>
#include <caf/policy/unprofiled.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduler/coordinator.hpp>

namespace nb {

class handoff_sharing : public caf::policy::unprofiled {
public:
  struct coordinator_data {
    explicit coordinator_data(caf::scheduler::abstract_coordinator*) {}
    std::mutex lock;
    std::condition_variable cv;
    std::deque<caf::resumable*> queue;
    size_t sleeping = 0; ///< workers waiting on cv
  };

  struct worker_data {
    explicit worker_data(caf::scheduler::abstract_coordinator*) {}
  };

  template <class Coordinator>
  void central_enqueue(Coordinator* self, caf::resumable* job) {
    push(d(self), job, 0);
  }

  template <class Worker>
  void external_enqueue(Worker* self, caf::resumable* job) {
    push(d(self->parent()), job, 0);
  }

  /// From the worker's own thread: it takes the job next unless there is
  /// more to do than that.
  template <class Worker>
  void internal_enqueue(Worker* self, caf::resumable* job) {
    push(d(self->parent()), job, 1);
  }

  /// A job that used up its throughput goes to the back, behind the rest.
  template <class Worker>
  void resume_job_later(Worker* self, caf::resumable* job) {
    push(d(self->parent()), job, 1);
  }

  template <class Worker>
  caf::resumable* dequeue(Worker* self) {
    auto& data = d(self->parent());
    std::unique_lock<std::mutex> guard(data.lock);
    while (data.queue.empty()) {
      ++data.sleeping;
      data.cv.wait(guard);
      --data.sleeping;
    }
    auto* job = data.queue.front();
    data.queue.pop_front();
    return job;
  }

  template <class Worker, class UnaryFunction>
  void foreach_resumable(Worker*, UnaryFunction) {
    // nop: workers keep no jobs of their own
  }

  template <class Coordinator, class UnaryFunction>
  void foreach_central_resumable(Coordinator* self, UnaryFunction f) {
    auto& data = d(self);
    std::unique_lock<std::mutex> guard(data.lock);
    while (!data.queue.empty()) {
      auto* job = data.queue.front();
      data.queue.pop_front();
      f(job);
    }
  }

private:
  /// Queues `job`; wakes a sleeping worker when more than `covered` jobs
  /// wait (the caller's own worker covers one when it is a worker).
  static void push(coordinator_data& data, caf::resumable* job,
                   size_t covered) {
    bool wake;
    {
      std::lock_guard<std::mutex> guard(data.lock);
      data.queue.push_back(job);
      wake = data.sleeping > 0 && data.queue.size() > covered;
    }
    if (wake)
      data.cv.notify_one();
  }
};

} // namespace nb

// The coordinator that runs this policy (with the lazy clock), and
// use_handoff_scheduler(): every user of the policy sees that definition.
#include "actors/common/handoff_coordinator.hpp"

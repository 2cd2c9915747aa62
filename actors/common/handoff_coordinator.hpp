// The scheduler that runs handoff_sharing: CAF's coordinator<Policy>, as
// CAF 0.17.6 writes it, with one change: its clock is nb::lazy_clock
// (lazy_clock.hpp: no wake-up of the clock thread per timeout armed or
// cancelled) instead of CAF's thread_safe_actor_clock, which the generic
// coordinator holds as a private member of that exact type. An explicit
// specialization for our own policy type is how CAF 0.17 lets the clock be
// chosen; handoff_sharing.hpp includes this header, so every translation
// unit that names coordinator<handoff_sharing> sees this definition.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/detail/set_thread_name.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <caf/scheduler/worker.hpp>

#include "actors/common/handoff_sharing.hpp"
#include "actors/common/lazy_clock.hpp"

namespace caf::scheduler {

template <>
class coordinator<nb::handoff_sharing> : public abstract_coordinator {
public:
  using super = abstract_coordinator;
  using policy_data = nb::handoff_sharing::coordinator_data;
  using worker_type = worker<nb::handoff_sharing>;

  explicit coordinator(actor_system& sys) : super(sys), data_(this) {}

  worker_type* worker_by_id(size_t x) { return workers_[x].get(); }

  policy_data& data() { return data_; }

  static actor_system::module* make(actor_system& sys, detail::type_list<>) {
    return new coordinator(sys);
  }

  nb::lazy_clock& clock() noexcept override { return clock_; }

protected:
  void start() override {
    typename worker_type::policy_data init{this};
    auto num = num_workers();
    workers_.reserve(num);
    for (size_t i = 0; i < num; ++i)
      workers_.emplace_back(new worker_type(i, this, init, max_throughput_));
    for (auto& w : workers_)
      w->start();
    // The thread for timeouts and delayed messages.
    timer_ = std::thread{[this] {
      detail::set_thread_name("caf.clock");
      system().thread_started();
      clock_.run_dispatch_loop();
      system().thread_terminates();
    }};
    super::start();
  }

  void stop() override {
    // As CAF's: each worker takes a job that ends it, one worker at a time
    // (any worker may take it), then the utility actors stop.
    struct shutdown_helper : resumable, ref_counted {
      resumable::resume_result resume(execution_unit* ptr, size_t) override {
        std::unique_lock<std::mutex> guard(mx);
        last_worker = ptr;
        cv.notify_all();
        return resumable::shutdown_execution_unit;
      }
      void intrusive_ptr_add_ref_impl() override { intrusive_ptr_add_ref(this); }
      void intrusive_ptr_release_impl() override { intrusive_ptr_release(this); }
      std::mutex mx;
      std::condition_variable cv;
      execution_unit* last_worker = nullptr;
    };
    shutdown_helper sh;
    std::set<worker_type*> alive;
    for (size_t i = 0; i < num_workers(); ++i) {
      alive.insert(worker_by_id(i));
      sh.ref(); // keeps the helper's count above zero across the rounds
    }
    while (!alive.empty()) {
      (*alive.begin())->external_enqueue(&sh);
      {
        std::unique_lock<std::mutex> guard(sh.mx);
        sh.cv.wait(guard, [&] { return sh.last_worker != nullptr; });
      }
      alive.erase(static_cast<worker_type*>(sh.last_worker));
      sh.last_worker = nullptr;
    }
    stop_actors();
    for (auto& w : workers_)
      w->get_thread().join();
    auto f = &abstract_coordinator::cleanup_and_release;
    for (auto& w : workers_)
      policy_.foreach_resumable(w.get(), f);
    policy_.foreach_central_resumable(this, f);
    clock_.cancel_dispatch_loop();
    timer_.join();
  }

  void enqueue(resumable* ptr) override { policy_.central_enqueue(this, ptr); }

private:
  nb::lazy_clock clock_;
  std::vector<std::unique_ptr<worker_type>> workers_;
  policy_data data_;
  nb::handoff_sharing policy_;
  std::thread timer_;
};

} // namespace caf::scheduler

namespace nb {

/// The gateway's scheduler (and a cluster node's): `threads` workers
/// under handoff_sharing, timeouts on the lazy clock.
inline void use_handoff_scheduler(caf::actor_system_config& cfg,
                                  int threads) {
  cfg.module_factories.push_back(
    [](caf::actor_system& sys) -> caf::actor_system::module* {
      return new caf::scheduler::coordinator<handoff_sharing>(sys);
    });
  cfg.set("scheduler.max-threads", threads);
}

} // namespace nb

// The WebSocket server's job worker: jobs run in order on one thread, which
// starts with the first job and ends when none came for its idle limit.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "actors/channels/websocket/ws_job_worker.hpp"

using namespace std::chrono_literals;

namespace {

/// Waits up to 5 s for `done`.
template <class F>
bool eventually(F done) {
  for (int i = 0; i < 500; ++i) {
    if (done())
      return true;
    std::this_thread::sleep_for(10ms);
  }
  return done();
}

} // namespace

TEST_CASE("the job worker starts its thread on demand and ends it when idle") {
  nb::ws::job_worker worker{100ms};
  CHECK_FALSE(worker.running()); // no job yet, no thread
  std::vector<int> order;
  std::promise<void> done;
  for (int i = 0; i < 5; ++i)
    worker.post([&order, i] { order.push_back(i); });
  worker.post([&done] { done.set_value(); });
  REQUIRE(done.get_future().wait_for(5s) == std::future_status::ready);
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(eventually([&] { return !worker.running(); }));
  // A job after the thread ended starts a new one.
  std::promise<std::thread::id> again;
  worker.post([&again] { again.set_value(std::this_thread::get_id()); });
  auto f = again.get_future();
  REQUIRE(f.wait_for(5s) == std::future_status::ready);
  CHECK(f.get() != std::this_thread::get_id());
  CHECK(eventually([&] { return !worker.running(); }));
}

TEST_CASE("the job worker's stop drops waiting jobs and refuses new ones") {
  nb::ws::job_worker worker{10s};
  std::promise<void> started, release;
  auto release_f = release.get_future().share();
  std::atomic<int> ran{0};
  worker.post([&started, release_f] {
    started.set_value();
    release_f.wait();
  });
  worker.post([&ran] { ++ran; }); // waits behind the first
  REQUIRE(started.get_future().wait_for(5s) == std::future_status::ready);
  auto stopping = std::async(std::launch::async, [&] { worker.stop(); });
  std::this_thread::sleep_for(50ms);
  release.set_value();
  REQUIRE(stopping.wait_for(5s) == std::future_status::ready);
  worker.post([&ran] { ++ran; });
  CHECK_FALSE(worker.running());
  CHECK(ran == 0);
}

// The elastic HTTP worker pool: growth up to the maximum, FIFO backlog,
// idle expiry, shutdown; and through a real http_listener on 127.0.0.1.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include "actors/channels/http/elastic_task_queue.hpp"
#include "actors/channels/http/http_listener.hpp"
#include "tests/support/eventually.hpp"

using namespace nb;
using nb::test::eventually;
using namespace std::chrono_literals;

namespace {

/// Tracks how many tasks run at once and the highest such count.
struct concurrency {
  std::atomic<int> now{0};
  std::atomic<int> peak{0};
  std::atomic<int> done{0};

  void enter() {
    auto n = ++now;
    auto p = peak.load();
    while (n > p && !peak.compare_exchange_weak(p, n)) {
      // retry with the fresh peak
    }
  }

  void leave() {
    --now;
    ++done;
  }
};

/// Counts worker threads whose thread-local storage has been destroyed,
/// i.e. threads that have really finished.
std::atomic<int> tls_alive{0};
std::atomic<int> tls_gone{0};

struct tls_probe {
  tls_probe() { ++tls_alive; }
  ~tls_probe() {
    --tls_alive;
    ++tls_gone;
  }
};

void touch_tls() {
  thread_local tls_probe probe;
  (void) probe;
}

} // namespace

TEST_CASE("elastic queue starts no thread and runs every task") {
  elastic_task_queue q{4};
  CHECK(q.threads() == 0);
  std::atomic<int> ran{0};
  for (int i = 0; i < 200; ++i)
    q.enqueue([&] { ++ran; });
  CHECK(q.threads() >= 1);
  CHECK(q.threads() <= 4);
  q.shutdown();
  CHECK(ran == 200);
  CHECK(q.threads() == 0);
}

TEST_CASE("elastic queue grows to at most max threads under a burst") {
  elastic_task_queue q{4};
  concurrency c;
  std::latch gate{1};
  for (int i = 0; i < 12; ++i)
    q.enqueue([&] {
      c.enter();
      gate.wait();
      c.leave();
    });
  REQUIRE(eventually([&] { return c.now == 4; }));
  CHECK(q.threads() == 4);
  CHECK(q.idle_threads() == 0);
  gate.count_down();
  q.shutdown();
  CHECK(c.done == 12);
  CHECK(c.peak == 4);
  CHECK(q.threads() == 0);
}

TEST_CASE("elastic queue keeps the backlog beyond max in FIFO order") {
  elastic_task_queue q{1};
  std::latch gate{1};
  std::atomic<bool> blocked{false};
  q.enqueue([&] {
    blocked = true;
    gate.wait();
  });
  REQUIRE(eventually([&] { return blocked.load(); }));
  std::mutex m;
  std::vector<int> order;
  for (int i = 0; i < 50; ++i)
    q.enqueue([&, i] {
      std::lock_guard lock{m};
      order.push_back(i);
    });
  // All 50 wait behind the blocked task: no thread beyond the maximum.
  CHECK(q.threads() == 1);
  {
    std::lock_guard lock{m};
    CHECK(order.empty());
  }
  gate.count_down();
  q.shutdown();
  std::vector<int> expected(50);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(order == expected);
}

TEST_CASE("elastic queue shrinks idle workers back to the minimum") {
  elastic_task_queue q{4, 1, 100ms};
  concurrency c;
  std::latch gate{1};
  for (int i = 0; i < 4; ++i)
    q.enqueue([&] {
      c.enter();
      gate.wait();
      c.leave();
    });
  REQUIRE(eventually([&] { return c.now == 4; }));
  CHECK(q.threads() == 4);
  gate.count_down();
  REQUIRE(eventually([&] { return c.done == 4; }));
  CHECK(eventually([&] { return q.threads() == 1; }));
  // The last one stays: well past the idle timeout it is still there.
  std::this_thread::sleep_for(400ms);
  CHECK(q.threads() == 1);
  // And the pool still serves, growing again on demand.
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i)
    q.enqueue([&] { ++ran; });
  CHECK(eventually([&] { return ran == 10; }));
  q.shutdown();
  CHECK(q.threads() == 0);
}

TEST_CASE("elastic queue shutdown waits for running tasks and their threads") {
  tls_alive = 0;
  tls_gone = 0;
  elastic_task_queue q{3, 0, 50ms};
  std::atomic<int> finished{0};
  std::atomic<int> started{0};
  // One short task whose worker expires on its own before shutdown...
  q.enqueue([&] { touch_tls(); });
  REQUIRE(eventually([&] { return q.threads() == 0; }));
  // ...then three that are still running when shutdown begins.
  for (int i = 0; i < 3; ++i)
    q.enqueue([&] {
      touch_tls();
      ++started;
      std::this_thread::sleep_for(200ms);
      ++finished;
    });
  REQUIRE(eventually([&] { return started == 3; }));
  q.shutdown();
  CHECK(finished == 3);
  CHECK(q.threads() == 0);
  // Every worker thread has ended, thread-local destructors included.
  CHECK(tls_alive == 0);
  CHECK(tls_gone == 4);
}

TEST_CASE("elastic queue drops tasks enqueued after shutdown") {
  elastic_task_queue q{2};
  q.enqueue([] {});
  q.shutdown();
  auto token = std::make_shared<int>(0);
  std::atomic<bool> ran{false};
  q.enqueue([&ran, token] { ran = true; });
  // Dropped at once: the task (and what it captured) is already gone.
  CHECK(token.use_count() == 1);
  CHECK(q.threads() == 0);
  q.shutdown(); // idempotent
  CHECK_FALSE(ran);
}

TEST_CASE("http listener serves a burst on an elastic pool that shrinks after") {
  http_listener l{"pool-test"};
  l.set_idle_timeout(100ms);
  concurrency c;
  l.server().Get("/slow", [&](const httplib::Request&, httplib::Response& res) {
    c.enter();
    std::this_thread::sleep_for(50ms);
    c.leave();
    res.set_content("done", "text/plain");
  });
  auto port = l.start("127.0.0.1", 0, 8);
  REQUIRE(port != 0);
  CHECK(l.pool_threads() == 0);
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 20; ++i)
    clients.emplace_back([&] {
      httplib::Client cli{"127.0.0.1", port};
      cli.set_read_timeout(30, 0);
      auto res = cli.Get("/slow");
      if (res && res->status == 200 && res->body == "done")
        ++answered;
    });
  for (auto& t : clients)
    t.join();
  CHECK(answered == 20);
  CHECK(c.peak >= 1);
  CHECK(c.peak <= 8);
  CHECK(l.pool_threads() <= 8);
  CHECK(eventually([&] { return l.pool_threads() == 0; }));
  l.stop();
  CHECK(l.pool_threads() == 0);
}

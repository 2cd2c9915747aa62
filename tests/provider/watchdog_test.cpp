// The provider's watchdog on its real thread: it fires at an armed call's
// deadline even when re-armed for an earlier one while it still timed the
// last, and calls made back to back do not wake its thread each time.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include <unistd.h>

#include "actors/provider/watchdog.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_scan.hpp"

using namespace nb;
using namespace std::chrono_literals;

TEST_CASE("a watchdog re-armed for an earlier deadline fires at that one") {
  std::atomic<int> fired{0};
  watchdog dog{[&] { ++fired; }, nullptr};
  // Without a cancel flag the thread sleeps until the deadline itself.
  dog.arm(watchdog::clock::now() + 1h);
  std::this_thread::sleep_for(20ms);
  CHECK(dog.disarm() == watchdog::reason::none);
  dog.arm(watchdog::clock::now() + 100ms);
  CHECK(test::eventually([&] { return fired.load() == 1; }, 5s));
  CHECK(dog.disarm() == watchdog::reason::deadline);
}

TEST_CASE("calls back to back do not wake the watchdog's thread each time") {
  auto before = test::thread_ids(::getpid());
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  std::atomic<int> fired{0};
  watchdog dog{[&] { ++fired; }, cancel};
  int tid = 0;
  for (auto& [t, name] : test::thread_ids(::getpid()))
    if (!before.count(t))
      tid = t;
  REQUIRE(tid != 0);
  auto switches_of = [](int t) {
    return test::context_switches(::getpid(), t);
  };
  // The first call wakes it from its unarmed sleep.
  dog.arm(watchdog::clock::now() + 60s);
  dog.disarm();
  std::this_thread::sleep_for(5ms);
  auto start = switches_of(tid);
  constexpr int calls = 200;
  for (int i = 0; i < calls; ++i) {
    dog.arm(watchdog::clock::now() + 60s);
    std::this_thread::sleep_for(1ms); // the call
    CHECK(dog.disarm() == watchdog::reason::none);
  }
  auto woken = switches_of(tid) - start;
  MESSAGE("watchdog thread switches over ", calls, " calls: ", woken);
  // It looks every 50 ms (the cancel poll), not at every call.
  CHECK(woken < calls / 4);
  // The cancel flag is still seen within its poll.
  dog.arm(watchdog::clock::now() + 60s);
  *cancel = true;
  CHECK(test::eventually([&] { return fired.load() == 1; }, 5s));
  CHECK(dog.disarm() == watchdog::reason::cancelled);
  CHECK(fired.load() == 1);
}

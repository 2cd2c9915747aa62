// The provider's watchdog on its real thread: it fires at an armed call's
// deadline even when re-armed for an earlier one while it still timed the
// last, and calls made back to back do not wake its thread each time.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <dirent.h>

#include "actors/provider/watchdog.hpp"
#include "tests/support/eventually.hpp"

using namespace nb;
using namespace std::chrono_literals;

namespace {

std::set<std::string> task_ids() {
  std::set<std::string> out;
  auto* dir = ::opendir("/proc/self/task");
  REQUIRE(dir != nullptr);
  while (auto* e = ::readdir(dir))
    if (e->d_name[0] != '.')
      out.insert(e->d_name);
  ::closedir(dir);
  return out;
}

long switches_of(const std::string& tid) {
  std::ifstream status{"/proc/self/task/" + tid + "/status"};
  std::string key;
  long sum = 0, value = 0;
  while (status >> key)
    if (key == "voluntary_ctxt_switches:"
        || key == "nonvoluntary_ctxt_switches:") {
      status >> value;
      sum += value;
    }
  return sum;
}

} // namespace

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
  auto before = task_ids();
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  std::atomic<int> fired{0};
  watchdog dog{[&] { ++fired; }, cancel};
  std::string tid;
  for (auto& t : task_ids())
    if (!before.count(t))
      tid = t;
  REQUIRE(!tid.empty());
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

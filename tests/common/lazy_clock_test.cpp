// The gateway's actor clock (lazy_clock, run by the handoff scheduler) on a
// real actor system: timeouts armed and cancelled in their thousands leave
// the clock thread asleep (its context switches, read from /proc), while
// every kind of entry still fires on time: a request's timeout, delayed
// messages in due order (a nearer one added after a farther one), a
// receive timeout, and never a cancelled one. An entry holding an actor's
// last reference lets it end, and a system with far-off entries stops.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <vector>

#include <unistd.h>

#include <caf/all.hpp>

#include "actors/common/handoff_sharing.hpp"
#include "tests/support/proc_scan.hpp"

using namespace std::chrono_literals;

namespace {

using ask_atom = caf::atom_constant<caf::atom("ask")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;

long clock_switches() {
  return nb::test::switches_of_threads(::getpid(), "caf.clock");
}

struct gateway_scheduler : caf::actor_system_config {
  gateway_scheduler() {
    nb::use_handoff_scheduler(*this, 2);
    set("logger.verbosity", caf::atom("quiet"));
  }
};

caf::behavior echo_actor(caf::event_based_actor*) {
  return {[](ask_atom, int32_t x) { return x; }};
}

caf::behavior silent_actor(caf::event_based_actor*) {
  return {[](ask_atom, int32_t) -> caf::result<int32_t> {
    return caf::delegated<int32_t>{}; // never answers
  }};
}

/// Asks `peer` `left` times in a row, each with a 60 s timeout, and says
/// how many answers came.
caf::behavior asker(caf::event_based_actor* self, caf::actor peer,
                    std::promise<int>* done) {
  auto answered = std::make_shared<int>(0);
  return {[=](ask_atom, int32_t left) {
    if (left == 0) {
      done->set_value(*answered);
      return;
    }
    self->request(peer, 60s, ask_atom::value, left)
      .then([=](int32_t) {
        ++*answered;
        self->send(self, ask_atom::value, left - 1);
      });
  }};
}

} // namespace

TEST_CASE("timeouts armed and answered leave the clock thread asleep") {
  gateway_scheduler cfg;
  caf::actor_system sys{cfg};
  constexpr int32_t requests = 5000;
  std::promise<int> done;
  auto peer = sys.spawn(echo_actor);
  auto a = sys.spawn(asker, peer, &done);
  std::this_thread::sleep_for(50ms);
  auto before = clock_switches();
  caf::anon_send(a, ask_atom::value, requests);
  auto f = done.get_future();
  REQUIRE(f.wait_for(60s) == std::future_status::ready);
  CHECK(f.get() == requests);
  auto switches = clock_switches() - before;
  MESSAGE("clock thread context switches for ", requests,
          " timed requests: ", switches);
  // CAF's thread_safe_actor_clock wakes its thread for each timeout armed
  // (thousands of switches here); only the first, with nothing scheduled
  // before it, needs to.
  CHECK(switches < 20);
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

TEST_CASE("a request's timeout still fires, and an answered one never") {
  gateway_scheduler cfg;
  caf::actor_system sys{cfg};
  auto quiet = sys.spawn(silent_actor);
  auto peer = sys.spawn(echo_actor);
  std::promise<caf::error> timed_out;
  std::atomic<int> late_errors{0};
  sys.spawn([&](caf::event_based_actor* s) {
    // A far deadline armed first, then a near one: the near one must wake
    // the clock before the far one's time.
    s->request(quiet, 30s, ask_atom::value, int32_t{1})
      .then([](int32_t) {}, [](caf::error&) {});
    s->request(peer, 100ms, ask_atom::value, int32_t{2})
      .then([](int32_t) {}, [&](caf::error&) { ++late_errors; });
    auto t0 = std::chrono::steady_clock::now();
    s->request(quiet, 150ms, ask_atom::value, int32_t{3})
      .then([](int32_t) {}, [&, t0](caf::error& err) {
        CHECK(std::chrono::steady_clock::now() - t0 >= 140ms);
        timed_out.set_value(err);
      });
  });
  auto f = timed_out.get_future();
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  CHECK(f.get() == caf::sec::request_timeout);
  std::this_thread::sleep_for(100ms);
  CHECK(late_errors == 0); // answered at once: its timeout was dropped
  caf::anon_send_exit(quiet, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

TEST_CASE("delayed messages arrive in due order, receive timeouts fire") {
  gateway_scheduler cfg;
  caf::actor_system sys{cfg};
  std::mutex m;
  std::vector<int32_t> seen;
  std::promise<void> all;
  auto sink = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {[&](tick_atom, int32_t x) {
      std::lock_guard<std::mutex> guard{m};
      seen.push_back(x);
      if (seen.size() == 3)
        all.set_value();
    }};
  });
  caf::scoped_actor self{sys};
  self->delayed_send(sink, 300ms, tick_atom::value, int32_t{3});
  self->delayed_send(sink, 150ms, tick_atom::value, int32_t{2});
  self->delayed_send(sink, 20ms, tick_atom::value, int32_t{1});
  REQUIRE(all.get_future().wait_for(10s) == std::future_status::ready);
  CHECK(seen == std::vector<int32_t>{1, 2, 3});
  // A receive timeout is the clock's ordinary timeout, re-armed after
  // every message: it fires once the messages stop.
  std::promise<void> idle;
  auto waiter = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {[](tick_atom, int32_t) {},
            caf::after(std::chrono::milliseconds(80)) >> [&] { idle.set_value(); }};
  });
  for (int32_t i = 0; i < 5; ++i) {
    self->send(waiter, tick_atom::value, i);
    std::this_thread::sleep_for(20ms);
  }
  REQUIRE(idle.get_future().wait_for(10s) == std::future_status::ready);
  caf::anon_send_exit(sink, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(waiter, caf::exit_reason::user_shutdown);
}

TEST_CASE("an entry holding an actor's last reference lets it end") {
  std::promise<void> ended;
  {
    gateway_scheduler cfg;
    caf::actor_system sys{cfg};
    auto quiet = sys.spawn(silent_actor);
    // No handle to this actor is kept: its pending request's timeout is
    // all that holds it. When that fires and the actor quits, the entry
    // goes, and the actor's end cancels its timeouts on the clock.
    sys.spawn([&, quiet](caf::event_based_actor* s) {
      s->attach_functor([&] { ended.set_value(); });
      s->request(quiet, 50ms, ask_atom::value, int32_t{1})
        .then([](int32_t) {}, [s](caf::error&) { s->quit(); });
      s->request(quiet, std::chrono::seconds(3600), ask_atom::value, int32_t{2})
        .then([](int32_t) {}, [](caf::error&) {});
    });
    REQUIRE(ended.get_future().wait_for(10s) == std::future_status::ready);
    // Far-off entries do not keep the system from stopping.
    sys.spawn([quiet](caf::event_based_actor* s) {
      s->delayed_send(quiet, std::chrono::hours(5), ask_atom::value,
                      int32_t{3});
    });
    caf::anon_send_exit(quiet, caf::exit_reason::user_shutdown);
  }
}

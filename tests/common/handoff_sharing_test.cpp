// The gateway's scheduler (handoff_sharing) on a real actor system with two
// workers: a chain of hand-offs runs on one worker without waking the
// other for each message (read from the workers' context switches in
// /proc), two jobs that must run at the same time still get both workers,
// and work sent from outside the workers is picked up at once.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include <unistd.h>

#include <caf/all.hpp>

#include "actors/common/handoff_sharing.hpp"
#include "tests/support/proc_scan.hpp"

using namespace std::chrono_literals;

namespace {

using ping_atom = caf::atom_constant<caf::atom("ping")>;
using pair_atom = caf::atom_constant<caf::atom("pair")>;

/// Context switches of this process's scheduler workers so far.
long worker_switches() {
  return nb::test::switches_of_threads(::getpid(), "caf.multiplexer");
}

struct two_workers : caf::actor_system_config {
  two_workers() {
    nb::use_handoff_scheduler(*this, 2);
    set("logger.verbosity", caf::atom("quiet"));
  }
};

/// Bounces a count between two actors until it reaches zero, then tells
/// `done`.
caf::behavior bouncer(caf::event_based_actor* self,
                      std::promise<void>* done) {
  return {[=](ping_atom, int32_t left, caf::actor peer) {
    if (left == 0) {
      done->set_value();
      return;
    }
    self->send(peer, ping_atom::value, left - 1,
               caf::actor_cast<caf::actor>(self));
  }};
}

/// Two halves that can only finish together: each waits (briefly blocking
/// its worker, as a test may) until the other has started.
struct rendezvous {
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  bool meet(std::chrono::milliseconds patience) {
    std::unique_lock<std::mutex> guard{m};
    ++arrived;
    cv.notify_all();
    return cv.wait_for(guard, patience, [&] { return arrived >= 2; });
  }
};

caf::behavior half(caf::event_based_actor*, rendezvous* r,
                   std::promise<bool>* met) {
  return {[=](pair_atom) { met->set_value(r->meet(10s)); }};
}

/// Whether both halves met (each waits 10 s for the other at most).
bool both_met(std::promise<bool>& a, std::promise<bool>& b) {
  auto fa = a.get_future();
  auto fb = b.get_future();
  REQUIRE(fa.wait_for(30s) == std::future_status::ready);
  REQUIRE(fb.wait_for(30s) == std::future_status::ready);
  bool met_a = fa.get();
  bool met_b = fb.get();
  return met_a && met_b;
}

caf::behavior splitter(caf::event_based_actor* self) {
  return {[=](pair_atom, caf::actor a, caf::actor b) {
    self->send(a, pair_atom::value);
    self->send(b, pair_atom::value);
  }};
}

} // namespace

TEST_CASE("a chain of hand-offs runs without waking the other worker") {
  two_workers cfg;
  caf::actor_system sys{cfg};
  constexpr int32_t bounces = 20000;
  std::promise<void> done;
  auto a = sys.spawn(bouncer, &done);
  auto b = sys.spawn(bouncer, &done);
  std::this_thread::sleep_for(50ms); // both workers asleep
  auto before = worker_switches();
  caf::anon_send(a, ping_atom::value, bounces, b);
  REQUIRE(done.get_future().wait_for(60s) == std::future_status::ready);
  auto switches = worker_switches() - before;
  MESSAGE("worker context switches for ", bounces, " hand-offs: ", switches);
  // CAF's own sharing policy wakes a worker for nearly every hand-off
  // (~one switch per message); here only the first message, from outside,
  // wakes one.
  CHECK(switches < bounces / 20);
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
}

TEST_CASE("two jobs handed off at once run on both workers") {
  two_workers cfg;
  caf::actor_system sys{cfg};
  rendezvous r;
  std::promise<bool> met_a, met_b;
  auto a = sys.spawn(half, &r, &met_a);
  auto b = sys.spawn(half, &r, &met_b);
  auto s = sys.spawn(splitter);
  std::this_thread::sleep_for(50ms);
  caf::anon_send(s, pair_atom::value, a, b);
  // Had the second job waited for the first worker, each half would have
  // waited its 10 s out alone.
  CHECK(both_met(met_a, met_b));
  for (auto& x : {a, b, s})
    caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
}

TEST_CASE("work from outside wakes a worker while the other is busy") {
  two_workers cfg;
  caf::actor_system sys{cfg};
  rendezvous r;
  std::promise<bool> met_a, met_b;
  auto a = sys.spawn(half, &r, &met_a);
  auto b = sys.spawn(half, &r, &met_b);
  caf::anon_send(a, pair_atom::value); // holds one worker until b runs
  std::this_thread::sleep_for(50ms);
  caf::anon_send(b, pair_atom::value);
  CHECK(both_met(met_a, met_b));
  for (auto& x : {a, b})
    caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
}

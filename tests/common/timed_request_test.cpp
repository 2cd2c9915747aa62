// Request timeouts and what they keep alive, on a real actor system. CAF
// 0.17 keeps every request's clock entry (holding a strong reference to the
// requester) until the timeout passes, answered or not; `timed_request`
// drops it with the answer. The strong references the clock holds are read
// from the requester's control block.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include <caf/all.hpp>

#include "actors/common/timed_request.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nb::test::eventually;
using namespace std::chrono_literals;

namespace {

/// How long any wait here may take before the test gives up (the clock
/// thread drops cancelled entries asynchronously).
constexpr auto patience = 20s;

/// A timeout no test outlives: an entry kept for it is kept for the test.
constexpr auto hour = std::chrono::seconds(3600);

using run_atom = caf::atom_constant<caf::atom("run")>;

caf::behavior echo() {
  return {[](int32_t x) { return x; }};
}

/// Answers nothing: requests to it time out.
caf::behavior silent() {
  return {[](int32_t) -> caf::result<int32_t> { return caf::delegated<int32_t>{}; }};
}

/// A turn's worker: asks once, keeps the answer in its state and waits for
/// nothing else; it ends when its last handle goes.
struct worker_state {
  std::atomic<int>* released = nullptr;
  std::atomic<bool>* answered = nullptr;
  ~worker_state() {
    if (released)
      ++*released;
  }
  static inline const char* name = "worker";
};

caf::behavior worker(caf::stateful_actor<worker_state>* self, caf::actor peer,
                     std::atomic<int>* released, std::atomic<bool>* answered,
                     bool cancelling) {
  self->state.released = released;
  self->state.answered = answered;
  auto keep = [self](int32_t) { *self->state.answered = true; };
  auto fail = [](caf::error&) {};
  if (cancelling)
    timed_request(self, peer, hour, int32_t{7}).then(keep, fail);
  else
    self->request(peer, hour, int32_t{7}).then(keep, fail);
  return {[](caf::ok_atom) {}};
}

/// A long-lived requester: asks `n` times, answers once all are answered.
caf::behavior requester(caf::event_based_actor* self, caf::actor peer) {
  return {[self, peer](run_atom, int32_t n, bool cancelling) {
    auto rp = self->make_response_promise<int32_t>();
    auto left = std::make_shared<int32_t>(n);
    for (int32_t i = 0; i < n; ++i) {
      auto done = [rp, left](int32_t) mutable {
        if (--*left == 0)
          rp.deliver(int32_t{0});
      };
      auto fail = [rp](caf::error& e) mutable { rp.deliver(std::move(e)); };
      if (cancelling)
        timed_request(self, peer, hour, i).then(done, fail);
      else
        self->request(peer, hour, i).then(done, fail);
    }
    return rp;
  }};
}

/// Strong references to `a` beyond the one this read takes itself (a
/// just-spawned or running actor has one more, from the scheduler).
size_t strong_refs(const caf::actor& a) {
  auto ptr = caf::actor_cast<caf::strong_actor_ptr>(a);
  return ptr->strong_refs.load() - 1;
}

void run(caf::actor_system& sys, const caf::actor& who, int32_t n,
         bool cancelling) {
  caf::scoped_actor self{sys};
  bool ok = false;
  self->request(who, patience, run_atom::value, n, cancelling)
    .receive([&](int32_t) { ok = true; }, [](caf::error&) {});
  REQUIRE(ok);
}

} // namespace

TEST_CASE_FIXTURE(test::system_fixture,
                  "CAF 0.17 keeps an answered requester alive until the "
                  "request's timeout") {
  auto peer = sys.spawn(echo);
  std::atomic<int> released{0};
  std::atomic<bool> answered{false};
  caf::actor_addr addr;
  {
    auto w = sys.spawn(worker, peer, &released, &answered, false);
    addr = w.address();
  }
  // The answer came and the last handle is gone, yet the clock's entry
  // (an hour) holds the worker and its state. (Without it the worker goes
  // as soon as its handler returns.)
  REQUIRE(eventually([&] { return answered.load(); }));
  std::this_thread::sleep_for(500ms);
  CHECK(released == 0);
  CHECK(caf::actor_cast<caf::actor>(addr));
  // Ending it drops its clock entries (and lets the system stop).
  caf::anon_send_exit(caf::actor_cast<caf::actor>(addr),
                      caf::exit_reason::user_shutdown);
  CHECK(eventually([&] { return released == 1; }));
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

TEST_CASE_FIXTURE(test::system_fixture,
                  "timed_request releases an answered requester at once") {
  auto peer = sys.spawn(echo);
  std::atomic<int> released{0};
  std::atomic<bool> answered{false};
  caf::actor_addr addr;
  {
    auto w = sys.spawn(worker, peer, &released, &answered, true);
    addr = w.address();
  }
  CHECK(eventually([&] { return released == 1; }));
  CHECK(answered);
  CHECK(!caf::actor_cast<caf::actor>(addr));
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

TEST_CASE_FIXTURE(test::system_fixture,
                  "answered requests leave no clock entries behind with "
                  "timed_request") {
  auto peer = sys.spawn(echo);
  auto plain = sys.spawn(requester, peer);
  auto cancelling = sys.spawn(requester, peer);
  constexpr size_t ours = 1; // the handle this test holds
  constexpr int32_t n = 2000;
  run(sys, plain, n, false);
  run(sys, cancelling, n, true);
  // Plain requests: one entry, one strong reference each, for an hour.
  CHECK(eventually([&] { return strong_refs(plain) == ours + n; }));
  // timed_request: all gone once the clock has read the cancellations.
  CHECK(eventually([&] { return strong_refs(cancelling) == ours; }));
  caf::anon_send_exit(plain, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(cancelling, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

TEST_CASE_FIXTURE(test::system_fixture,
                  "timed_request still ends in request_timeout without an "
                  "answer") {
  auto peer = sys.spawn(silent);
  caf::scoped_actor self{sys};
  auto asker = sys.spawn([peer](caf::event_based_actor* me) -> caf::behavior {
    return {[me, peer](run_atom) {
      auto rp = me->make_response_promise<std::string>();
      timed_request(me, peer, 100ms, int32_t{1})
        .then([rp](int32_t) mutable { rp.deliver(std::string{"answered"}); },
              [rp](caf::error& e) mutable {
                rp.deliver(e == caf::sec::request_timeout
                             ? std::string{"request_timeout"}
                             : caf::to_string(e));
              });
      return rp;
    }};
  });
  std::string outcome;
  self->request(asker, patience, run_atom::value)
    .receive([&](std::string& s) { outcome = s; }, [](caf::error&) {});
  CHECK(outcome == "request_timeout");
  // An error other than the timeout reaches the handler the same way.
  auto gone = sys.spawn(echo);
  caf::anon_send_exit(gone, caf::exit_reason::user_shutdown);
  self->wait_for(gone);
  auto asker2 = sys.spawn([gone](caf::event_based_actor* me) -> caf::behavior {
    return {[me, gone](run_atom) {
      auto rp = me->make_response_promise<std::string>();
      timed_request(me, gone, hour, int32_t{1})
        .then([rp](int32_t) mutable { rp.deliver(std::string{"answered"}); },
              [rp](caf::error&) mutable { rp.deliver(std::string{"error"}); });
      return rp;
    }};
  });
  outcome.clear();
  self->request(asker2, patience, run_atom::value)
    .receive([&](std::string& s) { outcome = s; }, [](caf::error&) {});
  CHECK(outcome == "error");
  CHECK(eventually([&] { return strong_refs(asker2) == 1; }));
  for (auto& a : {asker, asker2, peer})
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

namespace {

/// An actor that keeps its requests' deadlines itself (request_deadlines).
struct keeper_state {
  request_deadlines deadlines;
  std::atomic<int>* released = nullptr;
  ~keeper_state() {
    if (released)
      ++*released;
  }
  static inline const char* name = "keeper";
};

using keeper_pointer = caf::stateful_actor<keeper_state>*;

/// run: asks `peer` n times (an hour each) and answers once all answered.
/// "timeouts": asks `peer` with 300 ms, then 100 ms, and answers with the
/// order in which their timeouts came.
caf::behavior keeper(keeper_pointer self, caf::actor peer,
                     std::atomic<int>* released) {
  self->state.released = released;
  return {
    [self, peer](run_atom, int32_t n) {
      auto rp = self->make_response_promise<int32_t>();
      auto left = std::make_shared<int32_t>(n);
      for (int32_t i = 0; i < n; ++i)
        timed_request(self, peer, hour, i)
          .then(
            [rp, left](int32_t) mutable {
              if (--*left == 0)
                rp.deliver(int32_t{0});
            },
            [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
      return rp;
    },
    [self, peer](std::string& what) {
      auto rp = self->make_response_promise<std::string>();
      auto order = std::make_shared<std::string>(what);
      auto left = std::make_shared<int>(2);
      for (auto [name, after] : {std::pair{"long", 300ms},
                                 std::pair{"short", 100ms}})
        timed_request(self, peer, after, int32_t{1})
          .then([rp](int32_t) mutable { rp.deliver(std::string{"answer"}); },
                [rp, order, left,
                 name = std::string{name}](caf::error& e) mutable {
                  *order += e == caf::sec::request_timeout ? " " + name
                                                           : " other";
                  if (--*left == 0)
                    rp.deliver(*order);
                });
      return rp;
    },
  };
}

} // namespace

TEST_CASE_FIXTURE(test::system_fixture,
                  "an actor keeping its deadlines arms one clock entry, not "
                  "one per request") {
  auto peer = sys.spawn(echo);
  std::atomic<int> released{0};
  auto k = sys.spawn(keeper, peer, &released);
  constexpr size_t ours = 1; // the handle this test holds
  caf::scoped_actor self{sys};
  bool ok = false;
  self->request(k, patience, run_atom::value, int32_t{2000})
    .receive([&](int32_t) { ok = true; }, [](caf::error&) {});
  REQUIRE(ok);
  // 2000 answered requests; the clock holds the one armed sweep.
  CHECK(eventually([&] { return strong_refs(k) == ours + 1; }));
  // Ending it drops the sweep with its state.
  caf::anon_send_exit(k, caf::exit_reason::user_shutdown);
  CHECK(eventually([&] { return released == 1; }));
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

TEST_CASE_FIXTURE(test::system_fixture,
                  "kept deadlines end in request_timeout, the earliest first") {
  // The second request's deadline is earlier than the sweep armed for the
  // first: a sweep is armed for it too.
  auto peer = sys.spawn(silent);
  std::atomic<int> released{0};
  auto k = sys.spawn(keeper, peer, &released);
  caf::scoped_actor self{sys};
  std::string outcome;
  self->request(k, patience, std::string{"timeouts:"})
    .receive([&](std::string& s) { outcome = s; },
             [&](caf::error& e) { outcome = caf::to_string(e); });
  CHECK(outcome == "timeouts: short long");
  caf::anon_send_exit(k, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

namespace {

/// Awaits one answer from `peer` as it starts (the inbox awaits its journal
/// so), then answers pings.
caf::behavior awaiting_keeper(keeper_pointer self, caf::actor peer,
                              std::atomic<bool>* answered) {
  timed_request(self, peer, 200ms, int32_t{5})
    .await([answered](int32_t) { *answered = true; }, [](caf::error&) {});
  return {[](int32_t x) { return x; }};
}

} // namespace

TEST_CASE_FIXTURE(test::system_fixture,
                  "an answered await of an actor keeping its deadlines "
                  "leaves no timeout that ends the actor later") {
  // The cause of the gateway's "the router died (request_timeout)": the
  // inbox's start-up await armed its timeout under an ordinary message's id,
  // which no answer cancels; the write_timeout later the error came as a
  // message of its own and CAF's default error handler ended the inbox.
  auto peer = sys.spawn(echo);
  std::atomic<bool> answered{false};
  auto k = sys.spawn(awaiting_keeper, peer, &answered);
  caf::scoped_actor self{sys};
  self->monitor(k);
  REQUIRE(eventually([&] { return answered.load(); }));
  // Well past the await's 200 ms: the actor must still be there.
  caf::error died;
  self->receive([&](caf::down_msg& dm) { died = dm.reason; },
                caf::after(1s) >> [] {});
  CHECK_MESSAGE(!died, sys.render(died));
  int32_t pong = 0;
  self->request(k, patience, int32_t{9})
    .receive([&](int32_t x) { pong = x; }, [](caf::error&) {});
  CHECK(pong == 9);
  caf::anon_send_exit(k, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

// The schedules lease: one live gateway owns the schedules; a second one is
// refused until the first stops renewing or lets go. Files and PostgreSQL.
#include <doctest/doctest.h>

#include <thread>

#include <caf/all.hpp>

#include "actors/store/lease.hpp"
#include "tests/store/pg_server.hpp"
#include "tests/store/temp_dir.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace nb::test;

namespace {

struct answer {
  bool held = false;
  std::string holder;
  bool failed = false;
};

answer take(caf::scoped_actor& self, const lease_actor& l,
            const std::string& name, const std::string& owner, int64_t ttl) {
  answer a;
  self->request(l, std::chrono::seconds(30), lease_atom::value, name, owner, ttl)
    .receive([&](bool held, std::string& holder, int64_t) {
               a.held = held;
               a.holder = holder;
             },
             [&](caf::error&) { a.failed = true; });
  return a;
}

std::string unique_name() {
  return "schedules-" + std::to_string(::getpid()) + "-"
         + std::to_string(std::chrono::steady_clock::now()
                            .time_since_epoch().count() % 1000000);
}

void check_lease_rules(caf::actor_system& sys, const std::string& dir,
                       const std::string& dsn) {
  auto name = unique_name();
  auto first = spawn_lease_keeper(sys, dir, dsn);  // gateway one
  auto second = spawn_lease_keeper(sys, dir, dsn); // started by mistake
  caf::scoped_actor self{sys};
  auto a = take(self, first, name, "gw-a", 800);
  CHECK(a.held);
  auto b = take(self, second, name, "gw-b", 800);
  CHECK_FALSE(b.held);
  CHECK(b.holder == "gw-a");
  // Renewing keeps it while the holder lives.
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(take(self, first, name, "gw-a", 800).held);
    CHECK_FALSE(take(self, second, name, "gw-b", 800).held);
  }
  // The holder stops renewing (it died): after the TTL the other takes over.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto c = take(self, second, name, "gw-b", 800);
  CHECK(c.held);
  CHECK_FALSE(take(self, first, name, "gw-a", 800).held);
  // An orderly stop lets go at once.
  self->request(second, std::chrono::seconds(30), unlease_atom::value, name,
                std::string{"gw-b"})
    .receive([](caf::ok_atom) {}, [](caf::error& e) { FAIL(caf::to_string(e)); });
  CHECK(take(self, first, name, "gw-a", 800).held);
  // Bad names are refused, not turned into paths.
  CHECK(take(self, first, "../x", "gw-a", 800).failed);
  caf::anon_send_exit(first, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(second, caf::exit_reason::user_shutdown);
}

} // namespace

TEST_CASE_FIXTURE(system_fixture, "the schedules lease has one live holder in session files") {
  temp_dir dir;
  check_lease_rules(sys, dir.path, "");
}

TEST_CASE_FIXTURE(system_fixture, "the schedules lease has one live holder in PostgreSQL") {
  temp_dir dir;
  check_lease_rules(sys, dir.path, shared_pg_server().dsn());
}

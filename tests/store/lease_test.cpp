// The schedules lease: one live gateway owns the schedules; a second one is
// refused until the first stops renewing or lets go. Files and PostgreSQL.
#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <caf/all.hpp>

#include "actors/store/lease.hpp"
#include "actors/store/pg_conn.hpp"
#include "actors/store/process_mark.hpp"
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

namespace {

/// A process that ran and is gone (spawned, exited, reaped): its pid names
/// nobody now.
pid_t dead_pid() {
  pid_t pid = 0;
  char arg0[] = "true";
  char* argv[] = {arg0, nullptr};
  REQUIRE(::posix_spawnp(&pid, "true", nullptr, nullptr, argv, environ) == 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

/// Writes a lease file held by `holder` for another minute.
void write_lease(const std::string& dir, const std::string& name,
                 const std::string& holder, const process_mark& mark) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::system_clock::now().time_since_epoch()).count();
  std::ofstream{dir + "/.lease-" + name + ".json"}
    << nlohmann::json{{"owner", holder}, {"expires_at_ms", ms + 60000},
                      {"process", to_json(mark)}}.dump();
}

} // namespace

TEST_CASE_FIXTURE(system_fixture, "a lease whose holder died on this host is taken at once") {
  temp_dir dir;
  auto keeper = spawn_lease_keeper(sys, dir.path, "");
  caf::scoped_actor self{sys};
  auto name = unique_name();
  // Killed (kill -9 leaves its lease behind): same host, boot and PID
  // namespace, no such process any more.
  auto gone = this_process();
  gone.pid = dead_pid();
  CHECK(certainly_gone(gone));
  write_lease(dir.path, name, "host:old", gone);
  auto a = take(self, keeper, name, "host:new", 30000);
  CHECK(a.held);
  // Its own record names this process now.
  std::ifstream in{dir.path + "/.lease-" + name + ".json"};
  auto j = nlohmann::json::parse(in);
  CHECK(j["process"]["pid"] == ::getpid());
  // A live holder keeps it until its TTL: this process is alive.
  write_lease(dir.path, name, "host:alive", this_process());
  CHECK_FALSE(take(self, keeper, name, "host:new", 30000).held);
  // A pid reused by another process (other start time) is not the holder.
  auto reused = this_process();
  reused.started += 1;
  CHECK(certainly_gone(reused));
  // Another machine or container: only the TTL can tell.
  auto remote = gone;
  remote.host += "-elsewhere";
  CHECK_FALSE(certainly_gone(remote));
  remote = gone;
  remote.boot_id = "another-boot";
  CHECK_FALSE(certainly_gone(remote));
  remote = gone;
  remote.pid_ns = "pid:[1]";
  CHECK_FALSE(certainly_gone(remote));
  CHECK_FALSE(certainly_gone(process_mark{}));
  write_lease(dir.path, name, "elsewhere:1", remote);
  CHECK_FALSE(take(self, keeper, name, "host:new", 30000).held);
  caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
}

TEST_CASE_FIXTURE(system_fixture, "a PostgreSQL lease whose holder died on this host is taken at once") {
  temp_dir dir;
  auto dsn = shared_pg_server().dsn();
  auto keeper = spawn_lease_keeper(sys, dir.path, dsn);
  caf::scoped_actor self{sys};
  auto name = unique_name();
  // The keeper creates (or upgrades) the table on its first call.
  REQUIRE(take(self, keeper, name, "host:first", 30000).held);
  auto gone = this_process();
  gone.pid = dead_pid();
  pg_connection db{dsn};
  REQUIRE_FALSE(db.exec("UPDATE nb_leases SET owner = 'host:old', process = $2, "
                        "expires_at = now() + interval '1 minute' WHERE name = $1",
                        {name, to_json(gone).dump()}));
  CHECK(take(self, keeper, name, "host:new", 30000).held);
  // A live holder (this process) keeps it.
  REQUIRE_FALSE(db.exec("UPDATE nb_leases SET owner = 'host:alive', process = $2 "
                        "WHERE name = $1",
                        {name, to_json(this_process()).dump()}));
  CHECK_FALSE(take(self, keeper, name, "host:new", 30000).held);
  caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
}

// The schedules lease in simulated time (CAF's deterministic scheduler):
// two gateways on one session store, each with its own lease keeper (real
// lease files). The first owns cron and the heartbeat; when its keeper dies
// (the gateway cannot renew or release, as after a crash of its store
// access), it stops its schedules once the TTL has passed without a renewal,
// and the second takes the lease when it lapses — to the second, where real
// time would mean waiting out the TTL.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include <caf/all.hpp>

#include "actors/common/timed_request.hpp"
#include "actors/store/lease.hpp"
#include "actors/supervisor/schedules.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/sim_fixture.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

namespace {

constexpr int64_t lease_t0 = 1780308000000; // 2026-06-01T10:00:00Z

std::string lease_owner(const std::string& sessions) {
  std::ifstream in{sessions + "/.lease-schedules.json"};
  auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j.value("owner", "") : "";
}

/// A gateway's schedules: its own workspace, its own lease keeper.
struct gateway_schedules {
  lease_actor keeper;
  schedules_actor schedules;
  std::string workspace;

  gateway_schedules(sim_fixture& sim, const std::string& sessions,
                    std::string ws, std::string owner,
                    std::function<int64_t()> wall_ms)
      : workspace(std::move(ws)) {
    keeper = spawn_lease_keeper(sim.sys, sessions, "", std::move(wall_ms));
    settings cfg;
    cfg.agent.workspace = workspace;
    cfg.gateway.heartbeat.enabled = false;
    schedules_links links;
    links.leases = keeper;
    schedules = sim.sys.spawn(schedules_impl, cfg,
                              schedules_config{std::move(owner), 30000}, links);
  }

  /// Its cron ran here: the scheduler wrote its store.
  bool cron_started() const {
    return std::filesystem::exists(workspace + "/cron/jobs.json");
  }

  /// Whether cron runs here now, as the WebUI asks it ("running" or why
  /// not).
  std::string cron_here(sim_fixture& sim) const {
    std::string out = "no answer";
    auto s = schedules;
    sim.sys.spawn([&out, s](caf::event_based_actor* self) {
      timed_request(self, s, 10s, cron_owner_atom::value, std::string{"main"})
        .then([&out](cron_admin_actor&) { out = "running"; },
              [&out, self](caf::error& e) { out = self->system().render(e); });
    });
    sim.run();
    return out;
  }
};

} // namespace

TEST_CASE("the schedules lease in simulated time: a gateway that cannot "
          "renew stops after the TTL and the other takes over when it lapses") {
  sim_fixture sim;
  scratch_dir home;
  auto start = sim.sched.clock().now();
  auto wall_ms = [&sim, start] {
    return lease_t0
           + std::chrono::duration_cast<std::chrono::milliseconds>(
               sim.sched.clock().now() - start)
               .count();
  };
  std::filesystem::create_directories(home.at("sessions"));
  gateway_schedules a{sim, home.at("sessions"), home.at("ws-a"), "gw-a",
                      wall_ms};
  sim.run();
  gateway_schedules b{sim, home.at("sessions"), home.at("ws-b"), "gw-b",
                      wall_ms};
  sim.run();
  CHECK(lease_owner(home.at("sessions")) == "gw-a");
  CHECK(a.cron_started());
  CHECK(a.cron_here(sim) == "running");
  CHECK_FALSE(b.cron_started()); // on standby
  CHECK(b.cron_here(sim).find("held by 'gw-a'") != std::string::npos);

  // The first gateway loses its keeper: no renewal, no release.
  sim.advance(1s);
  caf::anon_send_exit(a.keeper, caf::exit_reason::kill);
  sim.run();
  // Its last renewal was at 0 s: the lease holds until 30 s.
  sim.advance(28s); // 29 s
  CHECK(lease_owner(home.at("sessions")) == "gw-a");
  CHECK_FALSE(b.cron_started());
  CHECK(a.cron_here(sim) == "running"); // its renewals fail, within the TTL
  sim.advance(5s); // 34 s: lapsed; the standby looks every 2 s
  CHECK(lease_owner(home.at("sessions")) == "gw-b");
  CHECK(b.cron_started());
  CHECK(b.cron_here(sim) == "running");
  CHECK(a.cron_here(sim) != "running"); // it stopped at 30 s

  for (auto h : {caf::actor_cast<caf::actor>(a.schedules),
                 caf::actor_cast<caf::actor>(b.schedules),
                 caf::actor_cast<caf::actor>(b.keeper)})
    caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  sim.run();
}

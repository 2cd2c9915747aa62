// The cron actor's timers in simulated time (CAF's deterministic scheduler):
// a job made by another process (cron/action.jsonl) waits for the actor's
// router, fires when the simulated clock reaches its slot and not a second
// before — checked at the exact second, with no sleeping and no "wait, then
// see that nothing came". Real files (the job store); the router is a
// recorder: the turns' own path is the router's and sessions' tests.
#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include <nlohmann/json.hpp>

#include <caf/all.hpp>

#include "actors/cron/cron.hpp"
#include "actors/cron/cron_ops.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/sim_fixture.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

constexpr int64_t t0 = 1780308000000; // 2026-06-01T10:00:00Z

caf::behavior turn_recorder(caf::event_based_actor*,
                            std::vector<inbound_msg>* got) {
  return {
    [=](inbound_msg& in) { got->push_back(std::move(in)); },
  };
}

} // namespace

TEST_CASE("the cron actor in simulated time: a due job waits for the router, "
          "then fires at each slot and not before") {
  sim_fixture sim;
  scratch_dir ws;
  auto start = sim.sched.clock().now();
  cron_config cfg;
  cfg.workspace = ws.path;
  cfg.poll = 2000ms;
  cfg.now_ms = [&sim, start] {
    return t0
           + std::chrono::duration_cast<std::chrono::milliseconds>(
               sim.sched.clock().now() - start)
               .count();
  };
  // Added as the cron tool adds it: queued in cron/action.jsonl.
  cron::job_store client{ws.at("cron"), cron::store_role::client};
  cron::add_request rq;
  rq.message = "water the plants";
  rq.every_seconds = 60;
  rq.session_key = "telegram:42";
  rq.channel = "telegram";
  rq.chat_id = "42";
  rq.origin_metadata = {{"message_thread_id", 7}};
  auto added = cron::add_job(client, rq, t0);
  REQUIRE(added.ok);
  auto cron = spawn_cron(sim.sys, cfg, stats_actor{});
  sim.run();

  std::vector<inbound_msg> turns;
  auto router = sim.sys.spawn(turn_recorder, &turns);
  // The slot comes before the actor knows where to deliver: it waits.
  sim.advance(61s);
  CHECK(turns.empty());
  caf::anon_send(cron, caf::actor_cast<router_actor>(router));
  sim.run();
  REQUIRE(turns.size() == 1);
  CHECK(turns[0].session_key_override == "telegram:42");
  CHECK(turns[0].sender_id == "cron");
  CHECK(turns[0].content.find("water the plants") != std::string::npos);
  auto meta = json::parse(turns[0].metadata_json);
  CHECK(meta["_cron_trigger"]["job_id"] == added.job_id);
  CHECK(meta["message_thread_id"] == 7); // the origin's thread
  // The next slot is t0 + 120 s: 58 s from now nothing, at 59 s the run.
  sim.advance(58s);
  CHECK(turns.size() == 1);
  sim.advance(1s);
  CHECK(turns.size() == 2);
  // Its run is on disk as the original records it.
  cron::job_store server{ws.at("cron")};
  auto jobs = server.read().jobs;
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].last_run_at_ms == t0 + 120'000);

  caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
  sim.run();
}

// The cron actor's timers in simulated time (CAF's deterministic scheduler):
// a job made by another process (cron/action.jsonl) waits for the actor's
// router, fires when the simulated clock reaches its slot and not a second
// before — checked at the exact second, with no sleeping and no "wait, then
// see that nothing came"; a paused job misses its slots and, resumed,
// fires on its grid. Real files (the job store); the router is a
// recorder: the turns' own path is the router's and sessions' tests.
#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include <nlohmann/json.hpp>

#include <caf/all.hpp>

#include "actors/cron/cron.hpp"
#include "actors/cron/cron_ops.hpp"
#include "messages/control.hpp"
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

/// A cron actor on the simulated clock (t0 at the start) with one job,
/// "water the plants" every minute from Telegram chat 42, added as the
/// cron tool adds it (queued in cron/action.jsonl), and a recording router.
struct cron_sim {
  sim_fixture sim;
  scratch_dir ws;
  std::vector<inbound_msg> turns;
  cron_admin_actor cron;
  caf::actor router;
  std::string job_id;

  cron_sim() {
    auto start = sim.sched.clock().now();
    cron_config cfg;
    cfg.workspace = ws.path;
    cfg.poll = 2000ms;
    cfg.now_ms = [this, start] {
      return t0
             + std::chrono::duration_cast<std::chrono::milliseconds>(
                 sim.sched.clock().now() - start)
                 .count();
    };
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
    job_id = added.job_id;
    cron = spawn_cron(sim.sys, cfg, stats_actor{});
    router = sim.sys.spawn(turn_recorder, &turns);
    sim.run();
  }

  void give_router() {
    caf::anon_send(cron, caf::actor_cast<router_actor>(router));
    sim.run();
  }

  cron::job stored() {
    cron::job_store server{ws.at("cron")};
    auto jobs = server.read().jobs;
    REQUIRE(jobs.size() == 1);
    return jobs[0];
  }

  ~cron_sim() {
    caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
    sim.run();
  }
};


} // namespace

TEST_CASE("the cron actor in simulated time: a due job waits for the router, "
          "then fires at each slot and not before") {
  cron_sim c;
  // The slot comes before the actor knows where to deliver: it waits.
  c.sim.advance(61s);
  CHECK(c.turns.empty());
  c.give_router();
  REQUIRE(c.turns.size() == 1);
  CHECK(c.turns[0].session_key_override == "telegram:42");
  CHECK(c.turns[0].sender_id == "cron");
  CHECK(c.turns[0].content.find("water the plants") != std::string::npos);
  auto meta = json::parse(c.turns[0].metadata_json);
  CHECK(meta["_cron_trigger"]["job_id"] == c.job_id);
  CHECK(meta["message_thread_id"] == 7); // the origin's thread
  // The next slot is t0 + 120 s: 58 s from now nothing, at 59 s the run.
  c.sim.advance(58s);
  CHECK(c.turns.size() == 1);
  c.sim.advance(1s);
  CHECK(c.turns.size() == 2);
  // Its run is on disk as the original records it.
  CHECK(c.stored().last_run_at_ms == t0 + 120'000);
}

TEST_CASE("a paused job misses its slots in simulated time; resumed, it "
          "fires on its grid") {
  cron_sim c;
  c.give_router();
  caf::anon_send(c.cron, cron_edit{"pause", c.job_id, "{}"});
  c.sim.run();
  CHECK_FALSE(c.stored().enabled);
  c.sim.advance(181s); // three slots pass
  CHECK(c.turns.empty());
  CHECK(c.stored().last_run_at_ms == 0);
  caf::anon_send(c.cron, cron_edit{"resume", c.job_id, "{}"});
  c.sim.run();
  CHECK(c.stored().next_run_at_ms == t0 + 240'000);
  c.sim.advance(58s); // t0 + 239 s
  CHECK(c.turns.empty());
  c.sim.advance(1s);
  CHECK(c.turns.size() == 1);
}

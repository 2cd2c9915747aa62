// The cron actor with the gateway's inbox: journals each run before
// recording it. (Its timers — a job waiting for the router, firing at its
// slot and not before — are tested in simulated time: tests/timers.)
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include <caf/all.hpp>

#include "actors/cron/cron.hpp"
#include "actors/cron/cron_ops.hpp"
#include "actors/inbox/inbox.hpp"
#include "actors/memory/dream.hpp"
#include "actors/memory/history_file.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

namespace {

using namespace nb;
using namespace std::chrono_literals;
using json = nlohmann::json;

constexpr int64_t t0 = 1780308000000; // 2026-06-01T10:00:00Z

/// A router that only records what it is sent.
struct recorder_state {
  recorder_state() = default;
  static inline const char* name = "recording_router";
  std::vector<inbound_msg> got;
};

using recorder_actor = caf::typed_actor<
  caf::reacts_to<inbound_msg>, caf::reacts_to<session_idle>,
  caf::reacts_to<session_services>,
  caf::replies_to<live_sessions_atom>::with<int32_t>,
  caf::replies_to<flush_atom>::with<int32_t>,
  caf::replies_to<caf::get_atom>::with<std::vector<inbound_msg>>>;

recorder_actor::behavior_type
recorder(recorder_actor::stateful_pointer<recorder_state> self) {
  return {
    [=](inbound_msg& in) { self->state.got.push_back(std::move(in)); },
    [](session_idle&) {},
    [](session_services&) {},
    [](live_sessions_atom) { return int32_t{0}; },
    [](flush_atom) { return int32_t{0}; },
    [=](caf::get_atom) { return self->state.got; },
  };
}

/// "water the plants" every minute, made in Telegram chat 42.
cron::add_request plants_every_minute() {
  cron::add_request rq;
  rq.message = "water the plants";
  rq.every_seconds = 60;
  rq.session_key = "telegram:42";
  rq.channel = "telegram";
  rq.chat_id = "42";
  return rq;
}

} // namespace

TEST_CASE("a job's turn is journaled before its run is recorded and a repeat "
          "after a crash is recognised") {
  test::system_fixture fx;
  test::scratch_dir ws;
  auto clock = std::make_shared<std::atomic<int64_t>>(t0);
  auto rec = fx.sys.spawn(recorder);
  inbox_config icfg;
  icfg.dir = ws.at("inbox");
  auto inbox = spawn_inbox(fx.sys, icfg, caf::actor_cast<router_actor>(rec),
                           stats_actor{});
  cron_config cfg;
  cfg.workspace = ws.path;
  cfg.poll = 20ms;
  cfg.now_ms = [clock] { return clock->load(); };
  cfg.inbox = inbox;
  cron::job_store store{ws.at("cron")};
  auto rq = plants_every_minute();
  // What the origin carried must not become every run's message id.
  rq.origin_metadata = {{"_message_id", 99}};
  auto added = cron::add_job(store, rq, t0);
  REQUIRE(added.ok);
  auto before_run = store.read().jobs; // the state a crash would leave
  auto received = [&](size_t n) {
    caf::scoped_actor self{fx.sys};
    std::vector<inbound_msg> got;
    for (int k = 0; k < 250 && got.size() < n; ++k) {
      self->request(rec, 5s, caf::get_atom::value)
        .receive([&](std::vector<inbound_msg>& v) { got = std::move(v); },
                 [&](caf::error& e) { FAIL(fx.sys.render(e)); });
      if (got.size() < n)
        std::this_thread::sleep_for(20ms);
    }
    return got;
  };
  auto recorded_run = [&] {
    for (int k = 0; k < 250; ++k) {
      auto jobs = store.read().jobs;
      if (!jobs.empty() && jobs[0].last_run_at_ms > 0)
        return jobs[0].last_run_at_ms;
      std::this_thread::sleep_for(20ms);
    }
    return int64_t{0};
  };

  clock->store(t0 + 60'000);
  auto cron = spawn_cron(fx.sys, cfg, stats_actor{});
  caf::anon_send(cron, caf::actor_cast<router_actor>(inbox));
  auto got = received(1);
  REQUIRE(got.size() == 1);
  auto meta = json::parse(got[0].metadata_json);
  CHECK(meta["_message_id"]
        == "cron:" + added.job_id + ":" + std::to_string(t0 + 60'000));
  CHECK_FALSE(got[0].inbox_id.empty()); // it passed through the journal
  CHECK(recorded_run() == t0 + 60'000);

  // A crash after the journal took the turn but before the run was saved:
  // the store still says the job is due in the same slot. The next fire
  // of that slot is recognised as the one already journaled.
  caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
  REQUIRE(store.update([&](cron::job_list& list) {
    list.jobs = before_run;
    return true;
  }).empty());
  clock->store(t0 + 61'000);
  cron = spawn_cron(fx.sys, cfg, stats_actor{});
  caf::anon_send(cron, caf::actor_cast<router_actor>(inbox));
  CHECK(recorded_run() == t0 + 61'000);

  // The next slot is a new run, and the turn after the first: the repeat
  // was recognised, not delivered again (it would have come in between).
  clock->store(t0 + 121'000);
  got = received(2);
  REQUIRE(got.size() == 2);
  CHECK(json::parse(got[1].metadata_json)["_message_id"]
        == "cron:" + added.job_id + ":" + std::to_string(t0 + 120'000));
  caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(inbox, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(rec, caf::exit_reason::user_shutdown);
}

TEST_CASE("with Dream off the scheduler's start moves its cursor past the backlog") {
  test::system_fixture fx;
  test::scratch_dir ws;
  std::string err;
  for (auto* text : {"one", "two", "three"})
    REQUIRE(append_history(ws.path, text, "", err));
  { std::ofstream{ws.at("memory/.dream_cursor")} << "1"; }
  cron_config cfg;
  cfg.workspace = ws.path;
  cfg.poll = 20ms;
  cfg.retired_system_jobs = {"dream"};
  auto cron = spawn_cron(fx.sys, cfg, stats_actor{});
  bool moved = false;
  for (int i = 0; i < 250 && !moved; ++i) {
    moved = read_dream_cursor(ws.path) == 3;
    if (!moved)
      std::this_thread::sleep_for(20ms);
  }
  CHECK(moved);
  caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
}

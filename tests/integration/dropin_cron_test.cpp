// Cron in a home made by the original program: the queued changes in
// cron/action.jsonl merge, jobs fire as turns in their sessions, `dream`
// consolidates and `heartbeat` reaches the heartbeat — never a model turn
// without a session.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <regex>
#include <set>
#include <thread>

#include <caf/all.hpp>

#include <httplib.h>

#include "actors/cron/cron.hpp"
#include "actors/cron/job_store.hpp"
#include "actors/cron/system_jobs.hpp"
#include "actors/heartbeat/heartbeat.hpp"
#include "actors/store/session_files.hpp"
#include "actors/supervisor/runtime.hpp"
#include "config/load.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/dropin_home.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

using namespace nb::test::dropin;

TEST_CASE("cron in the original's home: jobs merge and fire while dream and heartbeat are no turns") {
  fake_llm llm;
  fixture_home h;
  ::setenv("HOME", h.home.dir.c_str(), 1);
  ::setenv("NANOBOT_FIXTURE_API_BASE", llm.base_url().c_str(), 1);
  auto loaded = load_settings(h.config);
  REQUIRE(std::holds_alternative<loaded_settings>(loaded));
  auto cfg = std::get<loaded_settings>(loaded).value;
  REQUIRE(cfg.workspace_path() == h.ws);
  runtime rt{cfg};
  // Every handle to an actor lives in this block: the runtime's shutdown
  // waits for every actor to be gone, and a detached actor (cron, the
  // heartbeat) is gone only once no handle refers to it any more; a
  // scoped actor counts as running until it is destroyed.
  {
    auto svc = rt.services();

    auto hc = make_heartbeat_config(cfg);
    hc.own_timer = false;
    auto hb = spawn_heartbeat(rt.system(), hc,
                              heartbeat_links{rt.router(), svc.store,
                                              evaluator_actor{}, svc.outbox,
                                              svc.stats});
    auto now = std::make_shared<std::atomic<int64_t>>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch())
        .count());
    cron_config cc;
    cc.workspace = cfg.workspace_path();
    cc.poll = 20ms;
    cc.now_ms = [now] { return now->load(); };
    plan_system_jobs(cfg, cc);
    cc.heartbeat = hb;
    auto cron = spawn_cron(rt.system(), cc, svc.stats, svc.provider);
    caf::scoped_actor self{rt.system()};
    self->send(cron, rt.router());

    // The first tick merged action.jsonl: the stretch job is scheduled.
    // The test only looks (a client merges the queue in memory, never on
    // disk), so the emptied queue below is the scheduler's doing.
    cron::job_store store{h.ws + "/cron", cron::store_role::client};
    int64_t stretch_next = 0;
    for (int i = 0; i < 250 && stretch_next == 0; ++i) {
      for (auto& j : store.read().jobs)
        if (j.id == "a7e19b04")
          stretch_next = j.next_run_at_ms;
      if (stretch_next == 0)
        std::this_thread::sleep_for(20ms);
    }
    REQUIRE(stretch_next > now->load());
    CHECK(read_all(h.ws + "/cron/action.jsonl").empty());
    // The protected jobs were registered from the config as the original
    // does at start (state reset, one period ahead).
    for (auto& j : store.read().jobs) {
      if (j.id == "dream") {
        CHECK(j.payload_kind == "system_event");
        CHECK(j.schedule.every_ms == 2 * 3600 * 1000);
        CHECK(j.next_run_at_ms >= now->load() + 2 * 3600 * 1000 - 1000);
      } else if (j.id == "heartbeat") {
        CHECK(j.payload_kind == "system_event");
        CHECK(j.schedule.every_ms == 1800 * 1000);
        CHECK(j.schedule.tz == "UTC");
      }
    }

    auto ask = [&](const std::string& id) {
      std::string out;
      self->request(cron, 60s, cron_run_atom::value, id)
        .receive([&](std::string& s) { out = s; },
                 [&](caf::error& e) { out = "error: " + rt.system().render(e); });
      return out;
    };

    // dream: one model call over the entries after .dream_cursor (2 and 3).
    llm.push(text("- Alice grows a fern and two basil pots\n"
                  "- Alice keeps her shopping list in notes.txt"));
    auto dreamt = ask("dream");
    CHECK(dreamt == "dream: added 2 fact(s) from 2 entries; cursor at 3");
    REQUIRE(llm.request_count() == 1);
    auto prompt = llm.requests()[0].body["messages"].dump();
    CHECK(prompt.find("fern and two basil pots") != std::string::npos);
    CHECK(prompt.find("vegetarian lasagne") == std::string::npos);
    auto memory = read_all(h.ws + "/memory/MEMORY.md");
    CHECK(memory.find("- Name: Alice") != std::string::npos);
    CHECK(memory.find("- Alice grows a fern and two basil pots") != std::string::npos);
    CHECK(read_all(h.ws + "/memory/.dream_cursor") == "3");
    CHECK(ask("dream") == "dream: nothing to process");
    CHECK(llm.request_count() == 1);

    // heartbeat: the heartbeat actor decides (telegram is not enabled here,
    // so there is no chat to run it for) — no model call, no session.
    auto beat = ask("heartbeat");
    CHECK(beat.rfind("heartbeat: skipped", 0) == 0);
    CHECK(llm.request_count() == 1);

    // The same through the clock: the heartbeat job comes due, and the
    // stretch job runs as a turn in its own session. The clock moves to
    // each slot in time order: a jump past a slot by more than the grace
    // period would record that run as missed (the stretch job's slot
    // depends on the minute the test runs in).
    auto heartbeat_ran = [&] {
      for (int i = 0; i < 250; ++i) {
        for (auto& j : store.read().jobs)
          if (j.id == "heartbeat" && j.last_run_at_ms > 0)
            return true;
        std::this_thread::sleep_for(20ms);
      }
      return false;
    };
    auto dir = *resolve_sessions_dir(cfg);
    auto stretch_turned = [&] {
      for (int i = 0; i < 500; ++i) {
        if (auto snap = load_session(dir, "cli:direct"))
          for (auto& m : snap->messages)
            if (m.find("Time for a stretch break") != std::string::npos)
              return true;
        std::this_thread::sleep_for(20ms);
      }
      return false;
    };
    auto heartbeat_at = now->load() + 30 * 60 * 1000 + 1000;
    if (stretch_next + 1000 < heartbeat_at) {
      now->store(stretch_next + 1000);
      CHECK(stretch_turned());
      now->store(heartbeat_at);
      CHECK(heartbeat_ran());
    } else {
      now->store(heartbeat_at);
      CHECK(heartbeat_ran());
      now->store(stretch_next + 1000);
      CHECK(stretch_turned());
    }
    CHECK(session_keys(dir)
          == std::set<std::string>{"cli:direct", "telegram:4242"});
    caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(hb, caf::exit_reason::user_shutdown);
  }
  rt.shutdown(5s);
}

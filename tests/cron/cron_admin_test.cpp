// The WebUI's questions and changes to the cron actor (issue 20, part 4),
// against a real jobs.json: a job added through cron_edit is in the file
// and fires at its slot; pause stops it (the file says so) and resume
// brings it back; an update changes the schedule; "run now" sends the turn
// and records its run; protected system jobs and bad forms are refused with
// the field named; remove takes the job out of the file.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include <caf/all.hpp>

#include "actors/cron/cron.hpp"
#include "actors/cron/cron_ops.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

namespace {

using namespace nb;
using namespace std::chrono_literals;
using json = nlohmann::json;

constexpr int64_t admin_t0 = 1780308000000; // 2026-06-01T10:00:00Z

struct sink_state {
  sink_state() = default;
  static inline const char* name = "recording_router";
  std::vector<inbound_msg> got;
};

using sink_actor = caf::typed_actor<
  caf::reacts_to<inbound_msg>, caf::reacts_to<session_idle>,
  caf::reacts_to<session_services>,
  caf::replies_to<live_sessions_atom>::with<int32_t>,
  caf::replies_to<flush_atom>::with<int32_t>,
  caf::replies_to<caf::get_atom>::with<std::vector<inbound_msg>>>;

sink_actor::behavior_type sink(sink_actor::stateful_pointer<sink_state> self) {
  return {
    [=](inbound_msg& in) { self->state.got.push_back(std::move(in)); },
    [](session_idle&) {},
    [](session_services&) {},
    [](live_sessions_atom) { return int32_t{0}; },
    [](flush_atom) { return int32_t{0}; },
    [=](caf::get_atom) { return self->state.got; },
  };
}

struct admin_env {
  test::system_fixture fx;
  test::scratch_dir ws;
  std::shared_ptr<std::atomic<int64_t>> clock =
    std::make_shared<std::atomic<int64_t>>(admin_t0);
  sink_actor rec;
  cron_admin_actor cron;
  cron::job_store store{ws.at("cron")};

  admin_env() {
    rec = fx.sys.spawn(sink);
    cron_config cfg;
    cfg.workspace = ws.path;
    cfg.poll = 20ms;
    auto c = clock;
    cfg.now_ms = [c] { return c->load(); };
    cron = spawn_cron(fx.sys, cfg, stats_actor{});
    caf::anon_send(cron, caf::actor_cast<router_actor>(rec));
  }
  ~admin_env() {
    caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(rec, caf::exit_reason::user_shutdown);
  }

  json edit(const std::string& op, const std::string& id,
            const json& form = json::object()) {
    caf::scoped_actor self{fx.sys};
    json out;
    self->request(cron, 10s, cron_edit{op, id, form.dump()})
      .receive([&](std::string& text) { out = json::parse(text); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }

  json jobs() {
    caf::scoped_actor self{fx.sys};
    json out;
    self->request(cron, 10s, cron_jobs_atom::value)
      .receive([&](std::string& text) { out = json::parse(text); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }

  size_t received() {
    caf::scoped_actor self{fx.sys};
    size_t n = 0;
    self->request(rec, 5s, caf::get_atom::value)
      .receive([&](std::vector<inbound_msg>& v) { n = v.size(); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return n;
  }

  /// Waits (up to 5 s) until `n` turns arrived.
  size_t wait_for(size_t n) {
    size_t got = 0;
    for (int k = 0; k < 250 && (got = received()) < n; ++k)
      std::this_thread::sleep_for(20ms);
    return got;
  }

  cron::job stored(const std::string& id) {
    for (auto& j : store.read().jobs)
      if (j.id == id)
        return j;
    FAIL("job " << id << " is not in jobs.json");
    return {};
  }
};

json every_minute_form() {
  return {{"name", "plants"},
          {"message", "water the plants"},
          {"kind", "every"},
          {"every_seconds", 60},
          {"channel", "websocket"},
          {"chat_id", "web-1"}};
}

} // namespace

TEST_CASE("a job added by the page is in jobs.json and fires at its slot") {
  admin_env env;
  auto added = env.edit("add", "", every_minute_form());
  REQUIRE(added["ok"] == true);
  auto id = added["job"]["id"].get<std::string>();
  auto j = env.stored(id);
  CHECK(j.session_key == "websocket:web-1");
  CHECK(j.origin_channel == "websocket");
  CHECK(j.schedule.every_ms == 60'000);
  CHECK(j.next_run_at_ms == admin_t0 + 60'000);
  auto view = env.jobs()["jobs"][0];
  CHECK(view["id"] == id);
  CHECK(view["timing"] == "every 1m");
  CHECK(view["next_run_ms"] == admin_t0 + 60'000);
  CHECK(view["last_run"] == "");
  CHECK(view["chat_id"] == "web-1");
  CHECK_FALSE(view["tz"].get<std::string>().empty());

  env.clock->store(admin_t0 + 60'000);
  REQUIRE(env.wait_for(1) == 1);
  for (int k = 0; k < 250 && env.stored(id).last_run_at_ms == 0; ++k)
    std::this_thread::sleep_for(20ms);
  view = env.jobs()["jobs"][0];
  CHECK(view["last_run_ms"] == admin_t0 + 60'000);
  CHECK(view["last_status"] == "ok");
  CHECK(view["runs"].size() == 1);
}

TEST_CASE("pause keeps a job from firing; resume brings it back") {
  admin_env env;
  auto id = env.edit("add", "", every_minute_form())["job"]["id"]
              .get<std::string>();
  auto paused = env.edit("pause", id);
  REQUIRE(paused["ok"] == true);
  CHECK(paused["job"]["enabled"] == false);
  CHECK(env.stored(id).enabled == false);
  CHECK(env.stored(id).next_run_at_ms == 0);
  // That it then misses its slots is checked in simulated time, to the
  // second (tests/timers/cron_sim_test.cpp); here, the page's answers.
  env.clock->store(admin_t0 + 180'000);
  auto resumed = env.edit("resume", id);
  REQUIRE(resumed["ok"] == true);
  CHECK(env.stored(id).enabled);
  CHECK(env.stored(id).next_run_at_ms == admin_t0 + 240'000); // on its grid
  env.clock->store(admin_t0 + 240'000);
  CHECK(env.wait_for(1) == 1);
  CHECK(env.stored(id).last_run_at_ms == admin_t0 + 240'000);
}

TEST_CASE("an update changes the schedule, the message and the chat") {
  admin_env env;
  auto id = env.edit("add", "", every_minute_form())["job"]["id"]
              .get<std::string>();
  auto up = env.edit("update", id,
                     {{"message", "feed the cat"},
                      {"kind", "cron"},
                      {"cron_expr", "30 12 * * *"},
                      {"tz", "Europe/Berlin"},
                      {"channel", "telegram"},
                      {"chat_id", "42"}});
  REQUIRE(up["ok"] == true);
  auto j = env.stored(id);
  CHECK(j.message == "feed the cat");
  CHECK(j.name == "plants");
  CHECK(j.schedule.kind == "cron");
  CHECK(j.schedule.tz == "Europe/Berlin");
  CHECK(j.session_key == "telegram:42");
  // 12:30 in Berlin (CEST, +02:00) on 2026-06-01 is 10:30Z.
  CHECK(j.next_run_at_ms == admin_t0 + 30 * 60'000);
  CHECK(up["job"]["next_run"] == "2026-06-01T12:30:00+02:00");

  auto bad = env.edit("update", id, {{"kind", "cron"}, {"cron_expr", "61 * * * *"}});
  CHECK(bad["ok"] == false);
  CHECK(bad["error"].get<std::string>().find("minute") != std::string::npos);
  CHECK(env.stored(id).schedule.expr == "30 12 * * *"); // unchanged
}

TEST_CASE("run now sends the turn at once and records the run") {
  admin_env env;
  auto id = env.edit("add", "", every_minute_form())["job"]["id"]
              .get<std::string>();
  env.clock->store(admin_t0 + 5'000);
  auto run = env.edit("run", id);
  REQUIRE(run["ok"] == true);
  CHECK(env.wait_for(1) == 1);
  CHECK(run["job"]["last_run_ms"] == admin_t0 + 5'000);
  CHECK(run["job"]["last_status"] == "ok");
  auto j = env.stored(id);
  CHECK(j.last_run_at_ms == admin_t0 + 5'000);
  CHECK(j.next_run_at_ms
        == admin_t0 + 60'000); // the schedule goes on as it was
  REQUIRE(j.run_history.size() == 1);
  CHECK(env.edit("run", "nosuchjob")["ok"] == false);
}

TEST_CASE("bad forms and protected jobs are refused, naming the problem") {
  admin_env env;
  auto form = every_minute_form();
  form.erase("message");
  auto r = env.edit("add", "", form);
  CHECK(r["ok"] == false);
  CHECK(r["error"].get<std::string>().rfind("message", 0) == 0);
  form = every_minute_form();
  form["every_seconds"] = "soon";
  CHECK(env.edit("add", "", form)["error"].get<std::string>().rfind(
          "every_seconds", 0) == 0);
  form = every_minute_form();
  form["kind"] = "sometimes";
  CHECK(env.edit("add", "", form)["error"].get<std::string>().rfind("kind", 0)
        == 0);
  form = every_minute_form();
  form.erase("chat_id");
  CHECK(env.edit("add", "", form)["ok"] == false);
  CHECK(env.store.read().jobs.empty());

  // A system job (as the gateway registers Dream's).
  cron::job dream;
  dream.id = "dream";
  dream.name = "dream";
  dream.schedule = {"every", 0, 7'200'000, "", ""};
  REQUIRE(
    cron::reconcile_system_jobs(env.store, {dream}, {}, admin_t0).empty());
  for (auto op : {"pause", "update", "remove"}) {
    auto out = env.edit(op, "dream", {{"message", "x"}});
    CHECK(out["ok"] == false);
    CHECK(out["error"].get<std::string>().find("protected") != std::string::npos);
  }
  CHECK(env.stored("dream").enabled);
  CHECK(env.jobs()["jobs"][0]["system"] == true);
}

TEST_CASE("remove takes the job out of jobs.json") {
  admin_env env;
  auto id = env.edit("add", "", every_minute_form())["job"]["id"]
              .get<std::string>();
  auto out = env.edit("remove", id);
  CHECK(out["ok"] == true);
  CHECK(env.store.read().jobs.empty());
  CHECK(env.edit("remove", id)["ok"] == false);
  CHECK(test::read_all(env.ws.at("cron/jobs.json")).find(id)
        == std::string::npos);
}

// The cron actor: notices a job another process added, runs it as a turn in
// the creating session (through the router it was given) when the simulated
// clock reaches it, and nothing before it has a router.
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

struct cron_env {
  test::system_fixture fx;
  test::scratch_dir ws;
  std::shared_ptr<std::atomic<int64_t>> clock
    = std::make_shared<std::atomic<int64_t>>(t0);
  recorder_actor rec;
  cron_actor cron;

  cron_env() {
    rec = fx.sys.spawn(recorder);
    cron_config cfg;
    cfg.workspace = ws.path;
    cfg.poll = 20ms;
    auto c = clock;
    cfg.now_ms = [c] { return c->load(); };
    cron = spawn_cron(fx.sys, cfg, stats_actor{});
  }
  ~cron_env() {
    caf::anon_send_exit(cron, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(rec, caf::exit_reason::user_shutdown);
  }

  std::vector<inbound_msg> received() {
    caf::scoped_actor self{fx.sys};
    std::vector<inbound_msg> out;
    self->request(rec, 5s, caf::get_atom::value)
      .receive([&](std::vector<inbound_msg>& v) { out = std::move(v); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }

  /// Waits (up to 5 s of real time) until `n` messages arrived.
  std::vector<inbound_msg> wait_for(size_t n) {
    std::vector<inbound_msg> got;
    for (int k = 0; k < 250; ++k) {
      got = received();
      if (got.size() >= n)
        break;
      std::this_thread::sleep_for(20ms);
    }
    return got;
  }
};

} // namespace

TEST_CASE("the cron actor runs a due job as a turn in its session") {
  cron_env env;
  cron::job_store store{env.ws.at("cron")};
  cron::add_request rq;
  rq.message = "water the plants";
  rq.every_seconds = 60;
  rq.session_key = "telegram:42";
  rq.channel = "telegram";
  rq.chat_id = "42";
  rq.origin_metadata = {{"message_thread_id", 7}};
  auto added = cron::add_job(store, rq, t0);
  REQUIRE(added.ok);
  // Time reaches the slot before the actor knows where to deliver: it
  // waits for its router instead of firing into nowhere.
  env.clock->store(t0 + 60'000);
  std::this_thread::sleep_for(100ms);
  caf::anon_send(env.cron, caf::actor_cast<router_actor>(env.rec));
  auto got = env.wait_for(1);
  REQUIRE(got.size() == 1);
  auto& in = got[0];
  CHECK(in.session_key_override == "telegram:42");
  CHECK(in.channel == "telegram");
  CHECK(in.chat_id == "42");
  CHECK(in.sender_id == "cron");
  CHECK(in.content.find("Cron job: water the plants") != std::string::npos);
  auto meta = json::parse(in.metadata_json);
  CHECK(meta["_cron_trigger"]["job_id"] == added.job_id);
  CHECK(meta["message_thread_id"] == 7);
  // Nothing more until the next slot.
  std::this_thread::sleep_for(150ms);
  CHECK(env.received().size() == 1);
  env.clock->store(t0 + 120'000);
  CHECK(env.wait_for(2).size() == 2);
}

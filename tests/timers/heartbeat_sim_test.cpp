// The heartbeat's timers in simulated time (CAF's deterministic scheduler):
// no beat before the interval, one at it, the result through the gate to
// the chat; a turn that never answers is given up at the next beat after
// turn_timeout — a case real time could only test by waiting ten minutes.
// The store is the real file store on real files; the router and the
// evaluator stand in for the model's side (a turn's answer, the gate's
// verdict), which is what the heartbeat's own tests with a scripted LLM
// cover (heartbeat_e2e_test).
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/heartbeat/heartbeat.hpp"
#include "actors/store/session_store.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/sim_fixture.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

namespace {

/// What the stand-ins saw, and whether the "turn" answers.
struct seen {
  std::vector<inbound_msg> turns;
  std::vector<eval_request> gated;
  std::vector<outbound_msg> delivered;
  bool answer = true;
};

/// The router's part: a beat's turn answered like a session would.
caf::behavior router_stand_in(caf::event_based_actor* self, seen* s) {
  return {
    [=](inbound_msg& in) {
      s->turns.push_back(in);
      if (!s->answer)
        return; // the turn is lost
      outbound_msg out;
      out.channel = in.channel;
      out.chat_id = in.chat_id;
      out.session_key = in.session_key_override;
      out.kind = outbound_kind::final_reply;
      out.content = "It will rain at five: take the umbrella.";
      self->send(in.reply_to, std::move(out));
    },
  };
}

caf::behavior evaluator_stand_in(caf::event_based_actor*, seen* s) {
  return {
    [=](eval_request& rq) {
      s->gated.push_back(rq);
      return eval_verdict{true, "the user asked to be told", true};
    },
  };
}

caf::behavior outbox_stand_in(caf::event_based_actor*, seen* s) {
  return {
    [=](outbound_msg& m) { s->delivered.push_back(std::move(m)); },
  };
}

} // namespace

TEST_CASE("the heartbeat in simulated time: beats at its interval, delivers "
          "through the gate, gives up a lost turn") {
  sim_fixture sim;
  scratch_dir home;
  write_all(home.at("ws/HEARTBEAT.md"),
            "# Heartbeat\n\n## Active Tasks\n\n- Check the weather for "
            "the walk.\n");
  seen s;
  auto store = spawn_store(sim.sys, home.at("sessions"), 1, stats_actor{},
                           std::chrono::seconds(60));
  // A chat on an enabled channel for the beat to run in.
  caf::anon_send(
    store,
    session_append{"telegram:42", {R"({"role": "user", "content": "hi"})"}});
  sim.run();

  heartbeat_config cfg;
  cfg.workspace = home.at("ws");
  cfg.interval = 1800s;
  cfg.turn_timeout = 600s;
  cfg.call_timeout = 60s;
  cfg.enabled_channels = {"telegram"};
  heartbeat_links links;
  links.router =
    caf::actor_cast<router_actor>(sim.sys.spawn(router_stand_in, &s));
  links.evaluator =
    caf::actor_cast<evaluator_actor>(sim.sys.spawn(evaluator_stand_in, &s));
  links.outbox =
    caf::actor_cast<outbound_sink>(sim.sys.spawn(outbox_stand_in, &s));
  links.store = store;
  auto hb = spawn_heartbeat(sim.sys, cfg, links);
  sim.run();

  sim.advance(1799s);
  CHECK(s.turns.empty()); // not yet
  sim.advance(1s);
  REQUIRE(s.turns.size() == 1);
  CHECK(s.turns[0].channel == "telegram");
  CHECK(s.turns[0].chat_id == "42");
  CHECK(s.turns[0].content.find("Check the weather for the walk.")
        != std::string::npos);
  REQUIRE(s.gated.size() == 1);
  CHECK(s.gated[0].source == "heartbeat");
  REQUIRE(s.delivered.size() == 1);
  CHECK(s.delivered[0].chat_id == "42");
  CHECK(s.delivered[0].content == "It will rain at five: take the umbrella.");

  // The next beat's turn never answers; the one after gives it up (it is
  // older than turn_timeout) and beats again.
  s.answer = false;
  sim.advance(1800s);
  CHECK(s.turns.size() == 2);
  sim.advance(1799s);
  CHECK(s.turns.size() == 2); // still waiting for the lost turn
  sim.advance(1s);
  CHECK(s.turns.size() == 3);
  CHECK(s.delivered.size() == 1); // nothing from the lost turns

  caf::anon_send_exit(hb, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
  for (auto& a : {caf::actor_cast<caf::actor>(links.router),
                  caf::actor_cast<caf::actor>(links.evaluator),
                  caf::actor_cast<caf::actor>(links.outbox)})
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  sim.run();
}

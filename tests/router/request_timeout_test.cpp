// A request that times out costs its one turn, never the session or the
// router: the turn ends with an error the user reads, and the chat's next
// message is answered by the same session. An error that comes as a message
// of its own (a timeout no request waits for any more) is logged and
// dropped: CAF's default would end the actor, and a router or a session
// with it every chat it serves (the gateway once stopped so, "the router
// died (request_timeout)").
#include <doctest/doctest.h>

#include <chrono>

#include "tests/router/router_tree.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

TEST_CASE("a model call that times out fails its turn with a clear error; "
          "the session goes on") {
  router_tree t{0ms, [](session_config& c) {
                  c.model_timeout = std::chrono::seconds(1);
                }};
  auto first = t.say("slow", "hello");
  REQUIRE(echoes(first, "hello"));
  // The next model call never answers: the runner's kept deadline ends it.
  auto stalled = stream_text({"thinking"});
  stalled.stall = true;
  t.llm.push(stalled);
  auto failed = t.say("slow", "are you thinking?");
  REQUIRE(!failed.timed_out);
  CHECK(failed.content.find("could not reach the AI model")
        != std::string::npos);
  CHECK_MESSAGE(failed.content.find("request_timeout") != std::string::npos,
                failed.content);
  CHECK(failed.session == first.session);
  // The same session takes the next message and answers it.
  auto next = t.say("slow", "and now?");
  CHECK(echoes(next, "and now?"));
  CHECK(next.session == first.session);
  CHECK(t.live_sessions() == 1);
  CHECK(t.stored_user_texts("slow")
        == std::vector<std::string>{"hello", "are you thinking?",
                                    "and now?"});
  t.llm.stop(); // ends the stalled call
}

TEST_CASE("a timeout that arrives as a message of its own ends neither the "
          "router nor a session") {
  router_tree t{0ms};
  auto first = t.say("stray", "hello");
  REQUIRE(echoes(first, "hello"));
  auto session = caf::actor_cast<caf::actor>(first.session);
  REQUIRE(session);
  caf::scoped_actor self{t.fx.sys};
  self->monitor(t.router);
  self->monitor(session);
  // Both get the error before the next message (one sender, in order).
  auto stray = caf::make_error(caf::sec::request_timeout);
  self->send(caf::actor_cast<caf::actor>(t.router), stray);
  self->send(session, stray);
  auto next = t.say("stray", "still there?");
  CHECK(echoes(next, "still there?"));
  CHECK(next.session == first.session);
  bool down = false;
  self->receive([&](caf::down_msg&) { down = true; },
                caf::after(0ms) >> [] {});
  CHECK(!down);
}

// A session that dies mid-turn: the router notices (the down message),
// forgets it, and the chat's next message gets a new session that restores
// the chat from its file and answers. The dead turn's message was on disk
// before the model was called, so nothing the user sent is lost.
#include <doctest/doctest.h>

#include <chrono>

#include "tests/router/router_tree.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

TEST_CASE("a session killed mid-turn is replaced and the chat goes on") {
  router_tree t{0ms};
  auto first = t.say("d", "hello");
  REQUIRE(echoes(first, "hello"));
  REQUIRE(first.session);
  // The next turn's model call never ends (until the fake stops).
  auto stalled = stream_text({"thinking"});
  stalled.stall = true;
  t.llm.push(stalled);
  caf::scoped_actor self{t.fx.sys};
  auto in = router_tree::message("d", "the turn that dies");
  in.reply_to = caf::actor_cast<outbound_sink>(self);
  self->send(t.router, std::move(in));
  REQUIRE(eventually([&] { return t.llm.request_count() == 2; }));
  // Mid-turn, the session dies as an escaped exception would end it. (Not
  // with exit_reason::kill: that one is fatal to link partners too, and
  // the router is linked to its sessions.)
  auto session = caf::actor_cast<caf::actor>(first.session);
  REQUIRE(session);
  self->monitor(session);
  caf::anon_send_exit(session, caf::exit_reason::unhandled_exception);
  bool down = false;
  self->receive([&](caf::down_msg& dm) { down = dm.source == first.session; },
                caf::after(10s) >> [] {});
  REQUIRE(down);
  // The router's down handler forgot it.
  REQUIRE(eventually([&] { return t.live_sessions() == 0; }));
  auto next = t.say("d", "are you there?");
  REQUIRE(echoes(next, "are you there?"));
  CHECK(next.session != first.session);
  CHECK(t.live_sessions() == 1);
  // The new session restored the chat: the model saw the dead turn's
  // message, and the file has every user message once, in order.
  auto body = t.llm.requests().back().body.dump();
  CHECK(body.find("hello") != std::string::npos);
  CHECK(body.find("the turn that dies") != std::string::npos);
  CHECK(t.stored_user_texts("d")
        == std::vector<std::string>{"hello", "the turn that dies",
                                    "are you there?"});
  t.llm.stop(); // ends the orphaned runner's stalled call
}

// The router's idle handshake: a session idle past its limit offers to
// quit (session_idle with the count of messages it received); the router
// stops it only when it has forwarded nothing since, and forgets it. A
// message that reaches the router while the offer is on its way goes to
// the session that offered, which answers it; the next message after a
// stop gets a new session that restores the chat from its file.
#include <doctest/doctest.h>

#include <chrono>

#include "tests/router/router_tree.hpp"
#include "tests/router/scheduler_pause.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

TEST_CASE("an idle session is stopped and the next message restores the chat") {
  router_tree t{10ms};
  auto first = t.say("a", "remember 42");
  REQUIRE(echoes(first, "remember 42"));
  // Idle: it offers, the router agrees and forgets it.
  REQUIRE(eventually([&] { return t.live_sessions() == 0; }));
  auto second = t.say("a", "what did I say?");
  REQUIRE(echoes(second, "what did I say?"));
  CHECK(second.session != first.session); // a new actor ...
  auto body = t.llm.requests().back().body.dump();
  CHECK(body.find("remember 42") != std::string::npos); // ... with the file
  CHECK(t.stored_user_texts("a")
        == std::vector<std::string>{"remember 42", "what did I say?"});
}

TEST_CASE("a message arriving during the idle handshake is not lost") {
  // The message reaches the router after the session's offer to quit fell
  // due and before the router reads the offer, by construction rather than
  // by a race: right after an answer the test pauses the scheduler and
  // looks that the session and the router both wait with empty mailboxes
  // (so no offer is on its way yet), waits on the actor clock until past
  // the session's idle tick (the clock delivers in order of due time, so
  // the session's tick is in its mailbox by then), sends the message to
  // the router and resumes. The session then offers with a count the
  // router has already exceeded: the router refuses, and the same session
  // answers. An attempt where the pause came after the session had offered
  // (a loaded machine) is not counted; every message is answered either
  // way, and the test needs three counted attempts.
  constexpr auto tick = 10ms;
  router_tree t{tick};
  caf::scoped_actor self{t.fx.sys};
  auto router = caf::actor_cast<caf::strong_actor_ptr>(t.router);
  std::vector<std::string> sent;
  auto next_text = [&] { return "message " + std::to_string(sent.size()); };
  auto first = next_text();
  auto session = t.say("h", first);
  REQUIRE(echoes(session, first));
  sent.push_back(first);
  int counted = 0;
  int attempts = 0;
  for (; attempts < 200 && counted < 3; ++attempts) {
    auto text = next_text();
    bool offer_pending = false;
    {
      scheduler_pause pause{t.fx.sys};
      offer_pending =
        scheduler_pause::waiting_idle(router)
        && scheduler_pause::waiting_idle(
          caf::actor_cast<caf::strong_actor_ptr>(session.session));
      if (offer_pending) {
        bool past_tick = false;
        self->delayed_send(self, tick, caf::ok_atom::value);
        self->receive([&](caf::ok_atom) { past_tick = true; },
                      caf::after(std::chrono::seconds(30)) >> [] {});
        REQUIRE(past_tick);
      }
      auto in = router_tree::message("h", text);
      in.reply_to = caf::actor_cast<outbound_sink>(self);
      self->send(t.router, std::move(in));
    }
    auto answer = router_tree::await_answer(self);
    REQUIRE(echoes(answer, text));
    sent.push_back(text);
    if (offer_pending) {
      CHECK(answer.session == session.session); // the offer was refused
      ++counted;
    }
    session = answer;
  }
  MESSAGE(counted << " counted in " << attempts << " attempts");
  CHECK(counted == 3);
  // Every message once, in order, in the chat's file.
  CHECK(t.stored_user_texts("h") == sent);
  // Idle again, the session's next offer is taken.
  REQUIRE(eventually([&] { return t.live_sessions() == 0; }));
}

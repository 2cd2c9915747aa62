// The router's idle handshake: a session idle past its limit offers to
// quit (session_idle with the count of messages it received); the router
// stops it only when it has forwarded nothing since, and forgets it. A
// message that reaches the router while the offer is on its way goes to
// the session that offered, which answers it; the next message after a
// stop gets a new session that restores the chat from its file.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>

#include "tests/router/router_tree.hpp"

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
  // The session offers to quit 10 ms after its last message. Before a
  // "busy" round's message the test fills the router's mailbox with cheap
  // requests that keep it busy for longer than that: the session's offer
  // then reaches the router after the message, the router refuses it (it
  // forwarded one more than the session had seen) and the same session
  // answers. A round counts as such a hit only when the answer came from
  // the same session and the router forwarded the message more than 10 ms
  // after the session's last turn ended (so its offer had gone out): the
  // answer took longer than the slowest plain turn plus the tick. "Plain"
  // rounds wait for the handshake to stop the session: a new one answers.
  // Which way a busy round goes is the scheduler's choice; the test runs
  // until it saw three hits (at most 40 rounds) and needs one.
  router_tree t{10ms};
  constexpr int backlog = 50000;
  caf::scoped_actor self{t.fx.sys};
  std::vector<std::string> sent;
  int hits = 0;
  auto slowest_plain = 0ms;
  caf::actor_addr last;
  for (int round = 0; round < 40 && hits < 3; ++round) {
    bool busy_router = round % 2 == 1;
    if (!busy_router && last)
      REQUIRE(eventually([&] { return t.live_sessions() == 0; }));
    auto start = std::chrono::steady_clock::now();
    if (busy_router)
      for (int i = 0; i < backlog; ++i)
        caf::anon_send(t.router, live_sessions_atom::value);
    auto text = "message " + std::to_string(round);
    auto in = router_tree::message("h", text);
    in.reply_to = caf::actor_cast<outbound_sink>(self);
    self->send(t.router, std::move(in));
    auto answer = router_tree::await_answer(self);
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
    REQUIRE(echoes(answer, text));
    sent.push_back(text);
    if (!busy_router && last) {
      CHECK(answer.session != last); // stopped: a new session answered
      slowest_plain = std::max(slowest_plain, took);
    }
    if (busy_router && answer.session == last && round > 1
        && took > slowest_plain + 10ms)
      ++hits;
    last = answer.session;
  }
  MESSAGE(hits << " message(s) answered by a session that had offered to "
                  "quit (slowest plain turn "
               << slowest_plain.count() << " ms)");
  CHECK(hits >= 1);
  // Every message once, in order, in the chat's file.
  CHECK(t.stored_user_texts("h") == sent);
  REQUIRE(eventually([&] { return t.live_sessions() == 0; }));
}

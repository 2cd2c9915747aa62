// Per-session order under load: many sessions at once, each strictly serial.
#include <doctest/doctest.h>

#include <chrono>
#include <iostream>
#include <map>

#include <caf/scoped_actor.hpp>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/harness.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("200 sessions x 20 messages keep their order and run in parallel") {
  constexpr int sessions = 200;
  constexpr int per_session = 20;
  constexpr auto delay = std::chrono::milliseconds(10);
  temp_home home;
  fake_llm llm{0, 160};
  llm.set_responder([&](const nlohmann::json& body) {
    auto r = fake_llm::echo(body);
    r.delay = delay;
    return r;
  });
  auto cfg = settings_for(home, llm);
  cfg.gateway.provider_workers = 64;
  runtime rt{cfg};
  caf::scoped_actor self{rt.system()};
  auto start = std::chrono::steady_clock::now();
  for (int m = 0; m < per_session; ++m)
    for (int s = 0; s < sessions; ++s) {
      inbound_msg in;
      in.channel = "load";
      in.chat_id = "s" + std::to_string(s);
      in.content = "m" + std::to_string(m);
      in.reply_to = caf::actor_cast<outbound_sink>(self);
      self->send(rt.router(), std::move(in));
    }
  std::map<std::string, std::vector<int>> seen;
  int received = 0;
  bool timed_out = false;
  while (received < sessions * per_session && !timed_out)
    self->receive(
      [&](outbound_msg& out) {
        if (out.kind != outbound_kind::final_reply)
          return;
        ++received;
        // "echo: m<N>" followed by the runtime block.
        auto n = std::stoi(out.content.substr(7));
        seen[out.chat_id].push_back(n);
      },
      caf::after(std::chrono::seconds(120)) >> [&] { timed_out = true; });
  auto elapsed = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(timed_out);
  CHECK(seen.size() == sessions);
  for (auto& [chat, order] : seen) {
    CAPTURE(chat);
    REQUIRE(order.size() == per_session);
    for (int i = 0; i < per_session; ++i)
      CHECK(order[i] == i);
  }
  // Parallelism: many model calls were in flight at once. The time is
  // printed, not asserted: under load a wall-clock bound fails for reasons
  // that are not ours.
  auto serial = delay * sessions * per_session;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed);
  std::cout << "[ordering] " << sessions * per_session << " turns in "
            << ms.count() << " ms (one at a time: at least " << serial.count()
            << " ms); peak concurrent model calls " << llm.max_concurrent()
            << "\n";
  CHECK(llm.max_concurrent() >= 16);
  // Every session file holds its 20 exchanges in order.
  auto msgs = session_messages(cfg, "load:s7");
  REQUIRE(msgs.size() == 2 * per_session);
  for (int i = 0; i < per_session; ++i)
    CHECK(msgs[2 * i]["content"] == "m" + std::to_string(i));
}

// The shared tool pool: another chat's calls never wait behind a chat's
// long exclusive call (only for a free worker), and the pool's queue and
// waits are in /stats. One chat's order: actors_test.cpp.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/stats/stats.hpp"
#include "actors/tools/tools_front.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;
using namespace std::chrono;

namespace {

tool_request request_in(const std::string& session, const std::string& id,
                        const std::string& tool, const json& args) {
  tool_request r;
  r.session_key = session;
  r.call = tool_call{id, tool, args.dump()};
  return r;
}

} // namespace

TEST_CASE("a write_file in chat B completes while chat A runs sleep 20") {
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  auto cfg = nb::test::settings_for(tree.ws);
  cfg.gateway.tool_workers = 2; // a small pool: still no head-of-line wait
  auto front = spawn_tools(fx.sys, cfg, stats_actor{});
  caf::scoped_actor self{fx.sys};
  auto slow = self->request(front, seconds(60),
                            request_in("chat:A", "a1", "exec",
                                       {{"command", "sleep 20"}}));
  std::this_thread::sleep_for(milliseconds(300)); // A's call is running
  auto t0 = steady_clock::now();
  tool_result r;
  self->request(front, seconds(60),
                request_in("chat:B", "b1", "write_file",
                           {{"path", "b.txt"}, {"content", "from B"}}))
    .receive([&](tool_result& x) { r = std::move(x); },
             [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  auto waited = duration_cast<milliseconds>(steady_clock::now() - t0).count();
  MESSAGE("chat B's write_file took " << waited << " ms while A slept");
  CHECK_FALSE(r.is_error);
  CHECK(tree.get("ws/b.txt") == "from B");
  CHECK(waited < 5000);
  self->send(front, cancel_tools{"chat:A", {"a1"}});
  slow.receive([](tool_result&) {}, [](caf::error&) {});
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}

TEST_CASE("the tool pool reports its queue and wait times") {
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  auto cfg = nb::test::settings_for(tree.ws);
  cfg.gateway.tool_workers = 1;
  auto stats = spawn_stats(fx.sys);
  auto front = spawn_tools(fx.sys, cfg, stats);
  caf::scoped_actor self{fx.sys};
  for (int i = 0; i < 3; ++i)
    self->send(front, request_in("chat:" + std::to_string(i), "c", "exec",
                                 {{"command", "sleep 0.3"}}));
  for (int i = 0; i < 3; ++i)
    self->receive([](tool_result&) {},
                  caf::after(seconds(60)) >> [] { FAIL("no tool result"); });
  json doc;
  for (int i = 0; i < 100; ++i) {
    self->request(stats, seconds(5), stats_atom::value, std::string{"json"})
      .receive([&](std::string& text) { doc = json::parse(text); },
               [](caf::error&) {});
    if (doc["gauges"].contains("tool_wait_max_ms"))
      break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  auto& g = doc["gauges"];
  REQUIRE(g.contains("tool_wait_max_ms"));
  CHECK(g.contains("tool_queue"));
  CHECK(g.contains("tool_wait_p99_ms"));
  // One worker, three chats: the last one waited for the two before it.
  CHECK(g["tool_wait_max_ms"].get<int64_t>() >= 400);
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}

// Stopping running tools (/stop): the tools front passes cancel_tools to the
// exec watch, which kills a running exec's whole process group at once (its
// chat's next call may run) and refuses a cancelled call that has not started.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/tools/exec_watch.hpp"
#include "actors/tools/tools_front.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;
using namespace std::chrono;

namespace {

tool_request exec_req(const std::string& session, const std::string& id,
                      const std::string& command) {
  tool_request r;
  r.session_key = session;
  r.call = tool_call{id, "exec", json{{"command", command}}.dump()};
  return r;
}

} // namespace

TEST_CASE("stop kills a running exec with its grandchildren and frees the chat") {
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  auto cfg = nb::test::settings_for(tree.ws);
  // One chat: its next exclusive call waits for this one.
  auto front = spawn_tools(fx.sys, cfg, stats_actor{});
  caf::scoped_actor self{fx.sys};
  auto pending = self->request(front, seconds(120),
                               exec_req("s1", "c1",
                                        "sh -c 'sleep 300 & sleep 300'"));
  auto pids = nb::test::wait_for_descendants("sleep", 2);
  REQUIRE(pids.size() == 2);
  auto t0 = steady_clock::now();
  self->send(front, cancel_tools{"s1", {"c1"}});
  tool_result r;
  pending.receive([&](tool_result& x) { r = std::move(x); },
                  [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  auto ms = duration_cast<milliseconds>(steady_clock::now() - t0).count();
  MESSAGE("exec stopped after " << ms << " ms");
  CHECK(r.is_error);
  CHECK(has(r.content, "stopped"));
  CHECK(nb::test::all_gone(pids, seconds(5)));
  // The chat is free at once: a new command runs without waiting out the
  // killed one's 60 s timeout.
  t0 = steady_clock::now();
  self->request(front, seconds(30), exec_req("s1", "c2", "echo lane-free"))
    .receive([&](tool_result& x) { r = std::move(x); },
             [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  CHECK_FALSE(r.is_error);
  CHECK(has(r.content, "lane-free"));
  CHECK(steady_clock::now() - t0 < seconds(20));
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}

TEST_CASE("a cancelled exec that waits behind its chat never runs") {
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  auto cfg = nb::test::settings_for(tree.ws);
  auto front = spawn_tools(fx.sys, cfg, stats_actor{});
  caf::scoped_actor self{fx.sys};
  auto first = self->request(front, seconds(60),
                             exec_req("s2", "busy", "sleep 1; echo first"));
  REQUIRE(nb::test::wait_for_descendants("sleep", 1).size() == 1);
  auto second = self->request(front, seconds(60),
                              exec_req("s2", "queued", "touch ran.txt"));
  // Another session's stop touches nothing of s2.
  self->send(front, cancel_tools{"other", {"busy"}});
  self->send(front, cancel_tools{"s2", {"queued"}});
  tool_result r1, r2;
  first.receive([&](tool_result& x) { r1 = std::move(x); },
                [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  second.receive([&](tool_result& x) { r2 = std::move(x); },
                 [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  CHECK_FALSE(r1.is_error);
  CHECK(has(r1.content, "first"));
  CHECK(r2.is_error);
  CHECK(has(r2.content, "not run"));
  CHECK_FALSE(tree.exists("ws/ran.txt"));
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}

TEST_CASE("an exec whose watch is gone is not started") {
  // The tools are stopping (their watch has quit) when a worker picks the
  // call up: nobody could stop the command, so it must not run.
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  auto watch = fx.sys.spawn(exec_watch_impl, exec_session_limits{});
  caf::anon_send_exit(watch, caf::exit_reason::user_shutdown);
  caf::scoped_actor self{fx.sys};
  self->wait_for(watch);
  auto ctx = tree.ctx();
  ctx.system = &fx.sys;
  ctx.watch = watch;
  ctx.session_key = "s3";
  ctx.call_id = "late";
  auto out = nb::test::run(ctx, "exec", {{"command", "touch late.txt"}});
  CHECK(out.is_error);
  CHECK(has(out.content, "not run"));
  CHECK_FALSE(tree.exists("ws/late.txt"));
  // A background session is refused the same way.
  out = nb::test::run(ctx, "exec",
                      {{"command", "touch bg.txt"}, {"yield_time_ms", 0}});
  CHECK(out.is_error);
  CHECK_FALSE(tree.exists("ws/bg.txt"));
}

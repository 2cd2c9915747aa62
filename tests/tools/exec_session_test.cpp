// exec background sessions (exec with yield_time_ms, write_stdin,
// list_exec_sessions) through the real tools front, with real child
// processes: a command that outlives its yield becomes a session of the
// calling session key; write_stdin polls it, types into it, waits for
// text, closes its stdin or ends it; /stop ends a key's sessions and no
// process is left behind.
#include <doctest/doctest.h>

#include <chrono>
#include <regex>
#include <thread>

#include <caf/all.hpp>

#include "actors/tools/exec_session_output.hpp"
#include "actors/tools/exec_sessions.hpp"
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

struct session_rig {
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  tools_actor front;
  int calls = 0;

  session_rig() : session_rig([](settings&) {}) {
    // nop
  }

  /// With `adjust` applied to the settings first (tools.exec's keys).
  template <class F>
  explicit session_rig(F adjust) {
    auto cfg = nb::test::settings_for(tree.ws);
    cfg.tools.browser.enable = false;
    adjust(cfg);
    front = spawn_tools(fx.sys, cfg, stats_actor{});
  }

  ~session_rig() {
    caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
  }

  tool_result call(const std::string& key, const std::string& tool,
                   const json& args) {
    tool_request r;
    r.session_key = key;
    r.call = tool_call{"c" + std::to_string(++calls), tool, args.dump()};
    tool_result out;
    caf::scoped_actor self{fx.sys};
    self->request(front, seconds(200), std::move(r))
      .receive([&](tool_result& x) { out = std::move(x); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }

  void stop(const std::string& key) {
    caf::anon_send(front, cancel_tools{key, {}});
  }

  /// /stop's request: how many background sessions of `key` it ended.
  int32_t stop_counted(const std::string& key) {
    int32_t n = -1;
    caf::scoped_actor self{fx.sys};
    self->request(front, seconds(30), exec_stop_atom::value, key)
      .receive([&](int32_t x) { n = x; },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return n;
  }
};

std::string session_id_in(const std::string& text) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex{"session_id: ([0-9a-f]+)"}))
    return m[1];
  return {};
}

} // namespace

TEST_CASE(
  "bounded_output keeps the head and the latest bytes and counts the rest") {
  bounded_output b{10};
  b.append("012345");
  b.append("6789ABCDEF");
  auto [kept, dropped] = b.drain();
  CHECK(kept == "01234BCDEF");
  CHECK(dropped == 6);
  CHECK(b.empty());
  // A flood keeps memory bounded: 10 MB in, a few hundred kB held at most.
  bounded_output flood{50000};
  std::string chunk(65536, 'x');
  for (int i = 0; i < 160; ++i) {
    flood.append(chunk);
    CHECK(flood.held() <= 3 * 50000 + 2 * 65536);
  }
  auto [text, lost] = flood.drain();
  CHECK(text.size() == 50000);
  CHECK(lost == 160u * 65536u - 50000u);
}

TEST_CASE("the poll text follows the original's layout") {
  exec_session_poll p;
  p.id = "0123456789ab";
  p.output = "ready";
  p.elapsed_ms = 1234;
  CHECK(format_session_poll(p)
        == "ready\nProcess running. session_id: 0123456789ab\nElapsed: 1.2s");
  p.done = true;
  p.exit_code = 0;
  p.truncated = 2006;
  p.stdin_closed = true;
  p.wait_seen = false;
  CHECK(format_session_poll(p, "TARGET")
        == "ready\n(2,006 chars truncated from output)\nStdin closed.\n"
           "Exit code: 0\nElapsed: 1.2s\nWait target not observed: 'TARGET'");
}

TEST_CASE(
  "exec with yield_time_ms answers a quick command whole, without a session") {
  session_rig rig;
  auto r = rig.call("s1", "exec",
                    {{"command", "echo hello"}, {"yield_time_ms", 5000}});
  CHECK_FALSE(r.is_error);
  CHECK(has(r.content, "hello"));
  CHECK(has(r.content, "Exit code: 0"));
  CHECK(has(r.content, "Elapsed: "));
  CHECK_FALSE(has(r.content, "session_id:"));
  // Without yield_time_ms exec stays one-shot.
  r = rig.call("s1", "exec", {{"command", "echo plain"}});
  CHECK(has(r.content, "plain"));
  CHECK_FALSE(has(r.content, "Elapsed"));
}

TEST_CASE(
  "a cat session: write_stdin types, wait_for sees it, close_stdin ends it") {
  session_rig rig;
  auto r = rig.call("s1", "exec",
                    {{"command", "echo ready; cat"}, {"yield_time_ms", 300}});
  REQUIRE_FALSE(r.is_error);
  CHECK(has(r.content, "ready"));
  CHECK(has(r.content, "Process running. session_id: "));
  auto id = session_id_in(r.content);
  REQUIRE(id.size() == 12);
  r = rig.call(
    "s1", "write_stdin",
    {{"session_id", id}, {"chars", "ping-42\n"}, {"wait_for", "ping-42"}});
  CHECK_FALSE(r.is_error);
  CHECK(has(r.content, "ping-42"));
  CHECK(has(r.content, "Process running"));
  CHECK_FALSE(has(r.content, "Wait target not observed"));
  // Text that never comes: the wait ends at wait_timeout_ms and says so.
  r = rig.call("s1", "write_stdin",
               {{"session_id", id},
                {"wait_for", "never-printed"},
                {"wait_timeout_ms", 300}});
  CHECK(has(r.content, "Wait target not observed: 'never-printed'"));
  // A plain poll returns only what came since the last one.
  r = rig.call(
    "s1", "write_stdin",
    {{"session_id", id}, {"chars", "second\n"}, {"yield_time_ms", 500}});
  CHECK(has(r.content, "second"));
  CHECK_FALSE(has(r.content, "ping-42"));
  r = rig.call("s1", "write_stdin",
               {{"session_id", id},
                {"chars", "last"},
                {"close_stdin", true},
                {"yield_time_ms", 5000}});
  CHECK_FALSE(r.is_error);
  CHECK(has(r.content, "last"));
  CHECK(has(r.content, "Stdin closed."));
  CHECK(has(r.content, "Exit code: 0"));
  // Reported finished: the session is gone.
  r = rig.call("s1", "write_stdin", {{"session_id", id}, {"chars", ""}});
  CHECK(r.is_error);
  CHECK(has(r.content, "exec session not found: '" + id + "'"));
}

TEST_CASE("terminate ends a session with everything it started") {
  session_rig rig;
  auto r = rig.call(
    "s1", "exec",
    {{"command", "sh -c 'sleep 311 & sleep 311'"}, {"yield_time_ms", 0}});
  auto id = session_id_in(r.content);
  REQUIRE(id.size() == 12);
  auto pids = nb::test::wait_for_descendants("sleep", 2);
  REQUIRE(pids.size() == 2);
  r = rig.call("s1", "write_stdin", {{"session_id", id}, {"terminate", true}});
  CHECK(has(r.content, "Session terminated."));
  CHECK(has(r.content, "Exit code: -9"));
  CHECK(nb::test::all_gone(pids));
}

TEST_CASE("sessions belong to the session key that started them") {
  session_rig rig;
  auto a = session_id_in(
    rig.call("chat:a", "exec", {{"command", "sleep 312"}, {"yield_time_ms", 0}})
      .content);
  auto b = session_id_in(
    rig.call("chat:b", "exec", {{"command", "sleep 313"}, {"yield_time_ms", 0}})
      .content);
  REQUIRE(a.size() == 12);
  REQUIRE(b.size() == 12);
  auto list = rig.call("chat:a", "list_exec_sessions", json::object());
  CHECK_FALSE(list.is_error);
  CHECK(has(list.content, a + " | running | elapsed="));
  CHECK(has(list.content, "| sleep 312"));
  CHECK_FALSE(has(list.content, b));
  CHECK(rig.call("chat:c", "list_exec_sessions", json::object()).content
        == "No active exec sessions.");
  // Another chat cannot reach it, not even with the right id.
  auto r =
    rig.call("chat:b", "write_stdin", {{"session_id", a}, {"terminate", true}});
  CHECK(r.is_error);
  CHECK(has(r.content, "exec session not found"));
  auto pids = nb::test::wait_for_descendants("sleep", 2);
  REQUIRE(pids.size() == 2);
  // /stop in chat:a ends its session only.
  rig.stop("chat:a");
  auto until = steady_clock::now() + seconds(10);
  while (steady_clock::now() < until
         && nb::test::descendants_named("sleep").size() > 1)
    std::this_thread::sleep_for(milliseconds(20));
  CHECK(nb::test::descendants_named("sleep").size() == 1);
  CHECK(rig.call("chat:a", "list_exec_sessions", json::object()).content
        == "No active exec sessions.");
  CHECK(
    has(rig.call("chat:b", "list_exec_sessions", json::object()).content, b));
  rig.stop("chat:b");
  CHECK(nb::test::all_gone(pids));
}

TEST_CASE(
  "at most 8 sessions run at once; /stop frees them and leaves no process") {
  session_rig rig;
  for (int i = 0; i < 8; ++i) {
    auto r =
      rig.call("s1", "exec", {{"command", "sleep 320"}, {"yield_time_ms", 0}});
    REQUIRE(session_id_in(r.content).size() == 12);
  }
  auto r =
    rig.call("s1", "exec", {{"command", "echo ninth"}, {"yield_time_ms", 0}});
  CHECK(r.is_error);
  CHECK(has(r.content, "maximum exec sessions reached (8)"));
  auto pids = nb::test::wait_for_descendants("sleep", 8);
  REQUIRE(pids.size() == 8);
  rig.stop("s1");
  CHECK(nb::test::all_gone(pids));
  r = rig.call("s1", "exec",
               {{"command", "echo room-again"}, {"yield_time_ms", 5000}});
  CHECK(has(r.content, "room-again"));
}

TEST_CASE("tools.exec.maxSessions and sessionBufferChars set the limits and "
          "/stop counts the sessions it ended") {
  session_rig rig{[](settings& cfg) {
    cfg.tools.exec.max_sessions = 2;
    cfg.tools.exec.session_buffer_chars = 2000;
  }};
  for (int i = 0; i < 2; ++i)
    REQUIRE(
      session_id_in(
        rig.call("s1", "exec", {{"command", "sleep 350"}, {"yield_time_ms", 0}})
          .content)
        .size()
      == 12);
  auto r =
    rig.call("s1", "exec", {{"command", "echo third"}, {"yield_time_ms", 0}});
  CHECK(r.is_error);
  CHECK(has(r.content, "maximum exec sessions reached (2)"));
  auto pids = nb::test::wait_for_descendants("sleep", 2);
  REQUIRE(pids.size() == 2);
  CHECK(rig.stop_counted("other") == 0);
  CHECK(rig.stop_counted("s1") == 2);
  CHECK(nb::test::all_gone(pids));
  CHECK(rig.stop_counted("s1") == 0);
  // 10 000 bytes while nobody asks: 2 000 of them are kept (head and tail).
  r = rig.call("s1", "exec",
               {{"command", "sleep 0.2; head -c 10000 /dev/zero | tr '\\0' a; "
                            "echo; echo TAIL"},
                {"yield_time_ms", 0}});
  auto id = session_id_in(r.content);
  REQUIRE(id.size() == 12);
  r = rig.call("s1", "write_stdin",
               {{"session_id", id},
                {"yield_time_ms", 10000},
                {"max_output_chars", 50000}});
  CHECK(has(r.content, "Exit code: 0"));
  CHECK(has(r.content, "chars truncated from output)"));
  CHECK(has(r.content, "aaa\nTAIL"));
  CHECK(r.content.size() < 2600);
}

TEST_CASE("a session's output is capped, head and tail kept") {
  session_rig rig;
  auto r =
    rig.call("s1", "exec",
             {{"command",
               "sleep 0.3; head -c 300000 /dev/zero | tr '\\0' a; "
               "echo; head -c 300000 /dev/zero | tr '\\0' b >&2; echo END >&2"},
              {"yield_time_ms", 0}});
  auto id = session_id_in(r.content);
  REQUIRE(id.size() == 12);
  r = rig.call(
    "s1", "write_stdin",
    {{"session_id", id}, {"yield_time_ms", 10000}, {"max_output_chars", 1000}});
  CHECK_FALSE(r.is_error);
  CHECK(has(r.content, "Exit code: 0"));
  CHECK(has(r.content, "chars truncated from output)"));
  CHECK(r.content.rfind("aaaa", 0) == 0);
  CHECK(has(r.content, "bbbEND"));
  CHECK(r.content.size() < 1200);
}

TEST_CASE(
  "a session past tools.exec.timeout is killed and reported as an error") {
  session_rig rig;
  auto r = rig.call("s1", "exec",
                    {{"command", "echo started; sleep 330"},
                     {"timeout", 1},
                     {"yield_time_ms", 0}});
  auto id = session_id_in(r.content);
  REQUIRE(id.size() == 12);
  auto pids = nb::test::wait_for_descendants("sleep", 1);
  REQUIRE(pids.size() == 1);
  auto first = r.content; // may already hold "started"
  r = rig.call("s1", "write_stdin",
               {{"session_id", id}, {"yield_time_ms", 5000}});
  CHECK(r.is_error);
  CHECK(has(first + r.content, "started"));
  CHECK(has(r.content, "Error: Command timed out; session was terminated."));
  CHECK(nb::test::all_gone(pids));
}

namespace {

exec_session_poll start_on(caf::actor_system& sys,
                           const exec_sessions_full_actor& mgr,
                           const std::string& dir, const std::string& cmd) {
  exec_session_start rq;
  rq.owner = "s1";
  rq.launch.command = cmd;
  rq.launch.program = "/bin/sh";
  rq.launch.argv = {"/bin/sh", "-c", cmd};
  rq.launch.env = {"PATH=/usr/bin:/bin"};
  rq.launch.cwd = dir;
  rq.yield_ms = 0;
  exec_session_poll p;
  caf::scoped_actor self{sys};
  self->request(mgr, seconds(30), std::move(rq))
    .receive([&](exec_session_poll& x) { p = std::move(x); },
             [&](caf::error& e) { FAIL(sys.render(e)); });
  return p;
}

} // namespace

TEST_CASE(
  "the manager ends idle sessions and kills what it owns when it stops") {
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  // Idle after 300 ms: the session ends with its process.
  auto quick = fx.sys.spawn<caf::detached>(
    exec_sessions_impl, exec_session_limits{8, milliseconds(300)});
  auto p = start_on(fx.sys, quick, tree.ws, "sleep 340");
  REQUIRE(p.error.empty());
  CHECK_FALSE(p.done);
  auto idle = nb::test::wait_for_descendants("sleep", 1);
  REQUIRE(idle.size() == 1);
  CHECK(nb::test::all_gone(idle));
  caf::anon_send_exit(quick, caf::exit_reason::user_shutdown);
  // A manager that stops (the gateway shuts down) takes its processes.
  auto lasting =
    fx.sys.spawn<caf::detached>(exec_sessions_impl, exec_session_limits{});
  for (int i = 0; i < 2; ++i)
    REQUIRE(start_on(fx.sys, lasting, tree.ws, "sleep 341").error.empty());
  auto owned = nb::test::wait_for_descendants("sleep", 2);
  REQUIRE(owned.size() == 2);
  caf::anon_send_exit(lasting, caf::exit_reason::user_shutdown);
  CHECK(nb::test::all_gone(owned));
}

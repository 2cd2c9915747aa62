// exec's warm sandboxes (actors/tools/sandbox/warm_sandbox_pool.hpp), with
// real bwrap, slirp4netns and child processes: the next sandbox is prepared
// after a sandboxed exec, the next exec of the same launch takes it and its
// command sees what a cold one sees; a launch that changed (a secret that
// appeared) goes cold; timeouts and /stop kill the whole tree; nothing is
// left after the idle time or when the pool (or the tools front) ends.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

#include <unistd.h>

#include <caf/scoped_actor.hpp>

#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/sandbox/warm_sandbox_pool.hpp"
#include "actors/tools/tools_front.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/support/tcp_test_server.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using namespace std::chrono;

namespace {

bool warm_sandbox_runs() {
  return sandbox_status_for().available;
}

// Waits until the pool has a sandbox waiting; returns its pids (bwrap,
// then slirp4netns when it has a network).
std::vector<pid_t> wait_warm(const warm_sandbox_pool& pool) {
  auto until = steady_clock::now() + seconds(20);
  auto f = pool.counters();
  while (f.waiting.empty() && steady_clock::now() < until) {
    std::this_thread::sleep_for(milliseconds(5));
    f = pool.counters();
  }
  return f.waiting;
}

std::string comm_of(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/comm"};
  std::string name;
  std::getline(in, name);
  return name;
}

// Whether every pid has left /proc (reaped, not even a zombie) in time.
bool reaped_within(const std::vector<pid_t>& pids, milliseconds within) {
  auto until = steady_clock::now() + within;
  while (steady_clock::now() < until) {
    bool gone = true;
    for (auto p : pids)
      gone = gone && nb::test::read_proc(p).pid == 0;
    if (gone)
      return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

// Whether the pool's thread ended (it ends once every sandbox it started
// is gone) in time.
bool thread_ended(const warm_sandbox_pool& pool) {
  auto until = steady_clock::now() + seconds(10);
  while (pool.counters().thread_running && steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(10));
  return !pool.counters().thread_running;
}

// Closes `pool` and checks that what waited in it is gone, and what it was
// still preparing (so the next test starts with no sandbox of this one's).
void close_and_check(warm_sandbox_pool& pool) {
  auto waiting = pool.counters().waiting;
  pool.close();
  CHECK(reaped_within(waiting, seconds(10)));
  CHECK(thread_ended(pool));
}

// Runs `first` through exec in `ctx` (whose pool is `pool`) and waits
// until the pool has prepared the sandbox for the next call of that launch;
// returns its pids.
std::vector<pid_t> warm_up(const tool_context& ctx,
                           const warm_sandbox_pool& pool,
                           const nlohmann::json& first) {
  test::run(ctx, "exec", first);
  return wait_warm(pool);
}

// A workspace and a tool context on it with a pool of its own.
struct warm_fixture {
  test::temp_tree t;
  std::shared_ptr<warm_sandbox_pool> pool =
    std::make_shared<warm_sandbox_pool>();
  tool_context ctx = t.ctx();
  warm_fixture() {
    ctx.warm_sandboxes = pool;
  }
};

tool_request warm_exec_req(const std::string& key, const std::string& id,
                           const std::string& command) {
  tool_request r;
  r.call = {id, "exec", nlohmann::json{{"command", command}}.dump()};
  r.session_key = key;
  return r;
}

} // namespace

TEST_CASE("the next sandboxed exec takes the sandbox prepared after the "
          "last, and its command sees what a cold one sees") {
  if (!warm_sandbox_runs())
    return; // the sandbox tests say why
  test::temp_tree t;
  t.put("ws/.nanobot/config.json", "sk-warm-canary");
  // What a sandboxed command must not reach.
  nb::test::tcp_test_server host{[](int, nb::test::tcp_test_server&) {}};
  auto cold_ctx = t.ctx();
  cold_ctx.config_dir = t.ws + "/.nanobot";
  cold_ctx.exec.allowed_env_keys = {"NB_WARM_PROBE"};
  ::setenv("NB_WARM_PROBE", "trailing \\ and spaces  ", 1);
  auto pool = std::make_shared<warm_sandbox_pool>();
  auto warm_ctx = cold_ctx;
  warm_ctx.warm_sandboxes = pool;
  // What a command can see of its sandbox (the nproc rlimit is left out:
  // it is computed from the machine's process count at each start), in a
  // script the command sources: the exec guard refuses paths outside the
  // workspace in the command itself.
  t.put("ws/look.sh",
        "id; hostname; pwd; env | sort; ls /proc/self/fd; "
        "ulimit -c -d -t -n -v; cat /proc/self/cgroup; "
        "grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status; "
        "cat .nanobot/config.json 2>&1; ls /proc | grep -c '^[0-9]'; "
        "(exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(host.port())
          + ") 2>/dev/null && echo reached || echo refused; "
            "(exec 3<>/dev/tcp/192.168.1.1/80) 2>&1 | sed 's/.*: //'\n");
  std::string look = "echo \"$0 $$ $PPID $#\"; . ./look.sh; "
                     "printf 'last line, no newline\\n\\n'";
  CHECK(pool->counters().waiting.empty()); // nothing before the first exec
  CHECK_FALSE(pool->counters().thread_running);
  auto cold = test::run(cold_ctx, "exec", {{"command", look}});
  auto waiting = warm_up(warm_ctx, *pool, {{"command", "echo first"}});
  REQUIRE(waiting.size() == 2);
  CHECK(comm_of(waiting[0]) == "bwrap");
  CHECK(comm_of(waiting[1]) == "slirp4netns");
  auto warm = test::run(warm_ctx, "exec", {{"command", look}});
  auto f = pool->counters();
  CHECK(f.taken == 1);
  CHECK(f.prepared >= 1);
  INFO("cold:\n" << cold.content << "\nwarm:\n" << warm.content);
  CHECK(warm.content == cold.content);
  CHECK_FALSE(has(warm.content, "sk-warm-canary"));
  CHECK(has(warm.content, "refused"));
  CHECK(has(warm.content, "No route to host"));
  CHECK(has(warm.content, "NB_WARM_PROBE=trailing \\ and spaces  "));
  CHECK(has(warm.content, "Exit code: 0"));
  // The sandbox it took is gone; another waits for the next command.
  CHECK(reaped_within(waiting, seconds(10)));
  ::unsetenv("NB_WARM_PROBE");
  close_and_check(*pool);
}

TEST_CASE("a secret that appears after the warm sandbox was prepared stays "
          "masked") {
  if (!warm_sandbox_runs())
    return;
  warm_fixture fx;
  auto& [t, pool, ctx] = fx;
  ctx.config_dir = t.ws + "/.nanobot"; // not there yet
  auto unmasked = warm_up(ctx, *pool, {{"command", "true"}});
  REQUIRE_FALSE(unmasked.empty());
  t.put("ws/.nanobot/config.json", "sk-late-canary");
  auto out = test::run(ctx, "exec", {{"command", "cat .nanobot/config.json"}});
  INFO(out.content);
  CHECK_FALSE(has(out.content, "sk-late-canary"));
  auto f = pool->counters();
  CHECK(f.taken == 0);    // the launch changed: it ran cold
  CHECK(f.dropped >= 1);  // and the stale sandbox went
  CHECK(reaped_within(unmasked, seconds(10)));
  // The next one is prepared with the mask and taken.
  REQUIRE_FALSE(wait_warm(*pool).empty());
  out = test::run(ctx, "exec", {{"command", "cat .nanobot/config.json"}});
  CHECK(pool->counters().taken == 1);
  CHECK_FALSE(has(out.content, "sk-late-canary"));
  close_and_check(*pool);
}

TEST_CASE("a config file saved by a rename after the warm sandbox was "
          "prepared stays masked") {
  if (!warm_sandbox_runs())
    return;
  warm_fixture fx;
  auto& [t, pool, ctx] = fx;
  // A home whose workspace holds config.json: the file itself is masked,
  // and a mount over a file goes when the file is renamed over.
  ctx.config_dir = t.ws;
  ctx.config_file = t.ws + "/config.json";
  t.put("ws/config.json", "sk-old-canary");
  auto before = warm_up(ctx, *pool, {{"command", "true"}});
  REQUIRE_FALSE(before.empty());
  t.put("ws/config.json.tmp", "sk-saved-canary");
  REQUIRE(std::rename((t.ws + "/config.json.tmp").c_str(),
                      (t.ws + "/config.json").c_str())
          == 0);
  auto out = test::run(ctx, "exec", {{"command", "cat config.json"}});
  INFO(out.content);
  CHECK_FALSE(has(out.content, "canary"));
  CHECK(pool->counters().taken == 0);
  CHECK(reaped_within(before, seconds(10)));
  close_and_check(*pool);
}

TEST_CASE("a warm exec's timeout kills its whole tree and counts from the "
          "command") {
  if (!warm_sandbox_runs())
    return;
  warm_fixture fx;
  auto& [t, pool, ctx] = fx;
  // The same launch as the next call: its time limit sets the CPU rlimit.
  REQUIRE_FALSE(warm_up(ctx, *pool, {{"command", "true"}, {"timeout", 2}}).empty());
  // Prepared long before: the time limit still counts from the command.
  std::this_thread::sleep_for(milliseconds(1500));
  auto out = test::run(ctx, "exec",
                       {{"command", "sleep 300 & sleep 300 & sleep 0.5; "
                                    "echo awake; wait"},
                        {"timeout", 2}});
  INFO(out.content);
  CHECK(pool->counters().taken == 1);
  CHECK(out.is_error);
  CHECK(has(out.content, "timed out after 2 seconds"));
  CHECK(nb::test::descendants_named("sleep").empty());
  close_and_check(*pool);
}

TEST_CASE("stop kills a warm exec's tree, and the front's end leaves no "
          "sandbox waiting") {
  if (!warm_sandbox_runs())
    return;
  nb::test::system_fixture fx;
  nb::test::temp_tree tree;
  auto cfg = nb::test::settings_for(tree.ws);
  // The front as spawn_tools starts it, with a pool whose counters the
  // test can read.
  auto pool = std::make_shared<warm_sandbox_pool>();
  auto base = make_tool_context(cfg);
  base.warm_sandboxes = pool;
  auto front = caf::actor_cast<tools_actor>(fx.sys.spawn(
    tools_impl, std::make_shared<const tool_registry>(make_builtin_registry(cfg)),
    base, cfg.gateway.tool_workers, stats_actor{},
    std::map<std::string, mcp_server_settings>{}));
  base = {};
  caf::scoped_actor self{fx.sys};
  tool_result r;
  self->request(front, seconds(60), warm_exec_req("w1", "c0", "true"))
    .receive([&](tool_result& x) { r = std::move(x); },
             [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  // The front's prepared sandbox: a bwrap running the waiter.
  auto waiting = wait_warm(*pool);
  REQUIRE(waiting.size() == 2);
  auto warm_bwrap = waiting[0];
  CHECK(nb::test::read_proc(warm_bwrap).comm == "bwrap");
  auto pending = self->request(front, seconds(120),
                               warm_exec_req("w1", "c1",
                                             "sh -c 'sleep 300 & sleep 300'"));
  auto sleeps = nb::test::wait_for_descendants("sleep", 2);
  REQUIRE(sleeps.size() == 2);
  // It runs in the sandbox that waited: the sleeps descend from it.
  auto procs = nb::test::all_procs();
  CHECK(nb::test::family_of(warm_bwrap, procs).count(sleeps[0]) == 1);
  self->send(front, cancel_tools{"w1", {"c1"}});
  pending.receive([&](tool_result& x) { r = std::move(x); },
                  [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  CHECK(r.is_error);
  CHECK(has(r.content, "stopped"));
  CHECK(nb::test::all_gone(sleeps, seconds(5)));
  CHECK(pool->counters().taken == 1);
  CHECK(reaped_within(waiting, seconds(10)));
  // The next one waits; the front's end takes it (and its network) away.
  auto next = wait_warm(*pool);
  REQUIRE(next.size() == 2);
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
  CHECK(reaped_within(next, seconds(10)));
  CHECK(thread_ended(*pool));
}

TEST_CASE("warm sandboxes go after their idle time and when the pool ends") {
  if (!warm_sandbox_runs())
    return;
  test::temp_tree t;
  auto ctx = t.ctx();
  auto idle = std::make_shared<warm_sandbox_pool>(milliseconds(300));
  ctx.warm_sandboxes = idle;
  auto waiting = warm_up(ctx, *idle, {{"command", "true"}});
  REQUIRE(waiting.size() == 2);
  CHECK(reaped_within(waiting, seconds(10)));
  CHECK(idle->counters().dropped == 1);
  // Nothing left to wait for: its thread ends too.
  CHECK(thread_ended(*idle));
  auto pool = std::make_shared<warm_sandbox_pool>();
  ctx.warm_sandboxes = pool;
  waiting = warm_up(ctx, *pool, {{"command", "true"}});
  REQUIRE(waiting.size() == 2);
  ctx.warm_sandboxes.reset();
  pool.reset();
  CHECK(reaped_within(waiting, seconds(10)));
}

// exec with real child processes: output format, timeouts that kill the
// whole group, no zombies, capped floods, stdin EOF, a clean environment
// (A18-A22, A25).
#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/proc_scan.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;
using namespace std::chrono;

namespace {

// A process is gone once kill(pid, 0) fails with ESRCH; a zombie that
// init has yet to reap counts as gone too (it runs nothing any more).
bool gone(pid_t pid) {
  auto until = steady_clock::now() + seconds(5);
  while (steady_clock::now() < until) {
    if (::kill(pid, 0) != 0 && errno == ESRCH)
      return true;
    std::ifstream stat{"/proc/" + std::to_string(pid) + "/stat"};
    std::string pid_s, comm, state;
    if (stat >> pid_s >> comm >> state && state == "Z")
      return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

std::vector<pid_t> read_pids(const std::string& text) {
  std::vector<pid_t> out;
  std::istringstream in{text};
  long pid;
  while (in >> pid)
    out.push_back(static_cast<pid_t>(pid));
  return out;
}

// No child of ours is left unreaped.
bool no_zombie_children() {
  int status = 0;
  auto r = ::waitpid(-1, &status, WNOHANG);
  return r <= 0;
}

} // namespace

TEST_CASE("exec returns stdout stderr and the exit code") {
  test::temp_tree t;
  auto ok = test::run(t.ctx(), "exec", {{"command", "echo hi"}});
  CHECK_FALSE(ok.is_error);
  CHECK(ok.content == "hi\n\n\nExit code: 0");
  auto err = test::run(t.ctx(), "exec",
                       {{"command", "echo out; echo oops >&2; exit 3"}});
  CHECK_FALSE(err.is_error);
  CHECK(err.content == "out\n\nSTDERR:\noops\n\n\nExit code: 3");
  auto quiet = test::run(t.ctx(), "exec", {{"cmd", "true"}});
  CHECK(quiet.content == "\nExit code: 0");
  auto none = test::run(t.ctx(), "exec", json::object());
  CHECK(none.is_error);
  CHECK(has(none.content, "Missing command"));
}

TEST_CASE("exec timeout kills background children and leaves no zombie") {
  test::temp_tree t;
  auto start = steady_clock::now();
  auto out = test::run(t.ctx(), "exec",
                       {{"command", "sleep 100 & echo $! > pids; "
                                    "sleep 100 & echo $! >> pids; "
                                    "echo $$ >> pids; sleep 100"},
                        {"timeout", 1}});
  CHECK(out.is_error);
  CHECK(has(out.content, "Error: Command timed out after 1 seconds"));
  CHECK(steady_clock::now() - start < seconds(20));
  // The pids are the sandbox's own (its PID namespace): all three ran, and
  // none of them is left on the host.
  REQUIRE(read_pids(t.get("ws/pids")).size() == 3);
  CHECK(nb::test::descendants_named("sleep").empty());
  CHECK(no_zombie_children());
  // Unsandboxed, the same holds through the process group.
  out = test::run(t.ctx(false), "exec",
                  {{"command", "sleep 100 & echo $! > pids; sleep 100 & "
                               "echo $! >> pids; echo $$ >> pids; sleep 100"},
                   {"timeout", 1}});
  CHECK(has(out.content, "timed out after 1 seconds"));
  auto pids = read_pids(t.get("ws/pids"));
  REQUIRE(pids.size() == 3);
  for (auto pid : pids) {
    CAPTURE(pid);
    CHECK(gone(pid));
  }
  CHECK(no_zombie_children());
}

TEST_CASE("exec caps an output flood while the child runs") {
  test::temp_tree t;
  auto out = test::run(t.ctx(), "exec",
                       {{"command", "yes | head -c 5000000"}});
  CHECK_FALSE(out.is_error);
  CHECK(out.content.size() < 10200);
  CHECK(has(out.content, "chars truncated) ..."));
  CHECK(has(out.content, "Exit code: 0"));
  CHECK(out.content.rfind("y\ny\n", 0) == 0);
  auto err = test::run(t.ctx(), "exec",
                       {{"command", "head -c 3000000 /dev/zero | tr '\\0' e "
                                    ">&2; echo done"},
                        {"max_output_chars", 2000}});
  CHECK(err.content.size() < 2200);
  CHECK(has(err.content, "done"));
  CHECK(has(err.content, "STDERR:"));
  auto flood = test::run(t.ctx(), "exec", {{"command", "yes"}, {"timeout", 1}});
  CHECK(flood.is_error);
  CHECK(has(flood.content, "timed out after 1 seconds"));
  CHECK(no_zombie_children());
}

TEST_CASE("exec gives the child an empty stdin") {
  test::temp_tree t;
  auto start = steady_clock::now();
  auto cat = test::run(t.ctx(), "exec", {{"command", "cat"}, {"timeout", 20}});
  CHECK(cat.content == "\nExit code: 0");
  auto read = test::run(t.ctx(), "exec",
                        {{"command", "read x; echo rc=$?"}, {"timeout", 20}});
  CHECK(has(read.content, "rc=1"));
  CHECK(steady_clock::now() - start < seconds(10));
}

TEST_CASE("exec hides the parent environment") {
  test::temp_tree t;
  ::setenv("NB_TEST_SECRET", "s3cr3t-value", 1);
  auto ctx = t.ctx();
  ctx.exec.path_append = "$(touch pwned)";
  auto env = test::run(ctx, "exec", {{"command", "env"}});
  ::unsetenv("NB_TEST_SECRET");
  CHECK_FALSE(env.is_error);
  CHECK_FALSE(has(env.content, "NB_TEST_SECRET"));
  CHECK_FALSE(has(env.content, "s3cr3t-value"));
  CHECK(has(env.content, "LANG=C.UTF-8"));
  CHECK(has(env.content, "TERM=dumb"));
  // $HOME is not mounted in the sandbox: the workspace is home.
  CHECK(has(env.content, "HOME=" + t.ws + "\n"));
  auto open = test::run(t.ctx(false), "exec", {{"command", "env"}});
  CHECK(has(open.content, "HOME=" + t.root + "/home"));
  CHECK(has(env.content, ":$(touch pwned)\n"));
  CHECK_FALSE(t.exists("ws/pwned"));
}

TEST_CASE("exec returns promptly when a grandchild holds the pipe") {
  test::temp_tree t;
  auto start = steady_clock::now();
  auto out = test::run(t.ctx(), "exec",
                       {{"command", "(sleep 30 >&1 & echo $! > gc); echo hi"}});
  CHECK(steady_clock::now() - start < seconds(10));
  CHECK_FALSE(out.is_error);
  CHECK(has(out.content, "hi\n"));
  CHECK(has(out.content, "Exit code: 0"));
  REQUIRE(read_pids(t.get("ws/gc")).size() == 1);
  CHECK(nb::test::descendants_named("sleep").empty());
}

TEST_CASE("exec in the sandbox leaves no background job behind") {
  test::temp_tree t;
  for (auto cmd : {"sleep 30 >/dev/null 2>&1 & echo $!",
                   "setsid sleep 30 >/dev/null 2>&1 < /dev/null & echo ok",
                   "nohup sleep 30 >/dev/null 2>&1 & disown; echo ok"}) {
    CAPTURE(cmd);
    auto out = test::run(t.ctx(), "exec", {{"command", cmd}});
    INFO(out.content);
    CHECK_FALSE(out.is_error);
    CHECK(nb::test::descendants_named("sleep").empty());
  }
}

TEST_CASE("exec without the sandbox leaves a job that let go of the pipes alone") {
  test::temp_tree t;
  auto out = test::run(t.ctx(false), "exec",
                       {{"command", "sleep 30 >/dev/null 2>&1 & echo $!"}});
  auto pids = read_pids(out.content);
  REQUIRE(!pids.empty());
  CHECK(::kill(pids[0], 0) == 0);
  ::kill(pids[0], SIGKILL);
}

TEST_CASE("exec checks the shell parameter") {
  test::temp_tree t;
  auto run_shell = [&](const std::string& shell) {
    return test::run(t.ctx(), "exec",
                     {{"command", "echo $0"}, {"shell", shell}});
  };
  CHECK(has(run_shell("fish").content, "unsupported shell 'fish'"));
  CHECK(has(run_shell("bash\n").content, "invalid characters"));
  CHECK(has(run_shell("/tmp/evil/bash").content, "shell must be"));
  auto nulls = test::run(t.ctx(), "exec",
                         {{"command", "echo $0"}, {"shell", nullptr},
                          {"login", nullptr}, {"max_output_chars", nullptr}});
  CHECK_FALSE(nulls.is_error);
  CHECK(has(nulls.content, "bash\n"));
  auto sh = run_shell("sh");
  CHECK_FALSE(sh.is_error);
  CHECK(has(sh.content, "sh\n"));
}

TEST_CASE("exec rejects a timeout above the cap through the registry") {
  test::temp_tree t;
  auto out = test::run(t.ctx(), "exec",
                       {{"command", "echo x"}, {"timeout", 99999}});
  CHECK(out.is_error);
  CHECK(has(out.content, "timeout must be <= 600"));
}

TEST_CASE("exec runs anything in an unrestricted context") {
  test::temp_tree t;
  auto out = test::run(t.ctx(false), "exec",
                       {{"command", "cat " + t.outside + "/secret.txt"}});
  CHECK_FALSE(out.is_error);
  CHECK(has(out.content, "TOP-SECRET"));
}

TEST_CASE("the model cannot raise exec's timeout above tools.exec.timeout") {
  test::temp_tree t;
  auto ctx = t.ctx();
  ctx.exec.timeout_s = 1;
  auto start = steady_clock::now();
  auto out = test::run(ctx, "exec", {{"command", "sleep 30"}, {"timeout", 600}});
  CHECK(out.is_error);
  CHECK(has(out.content, "timed out after 1 seconds"));
  CHECK(steady_clock::now() - start < seconds(15));
  // A shorter one is still honoured.
  ctx.exec.timeout_s = 60;
  out = test::run(ctx, "exec", {{"command", "sleep 30"}, {"timeout", 1}});
  CHECK(has(out.content, "timed out after 1 seconds"));
}

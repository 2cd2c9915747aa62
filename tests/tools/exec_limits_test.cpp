// exec hardening: resource limits inside the child, allowlist mode, deny
// patterns on every segment of a compound command, no keys in the child's
// environment, a 1 GB flood read without the gateway's memory growing.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>

#include <sys/resource.h>

#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

long peak_rss_kb() {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

} // namespace

TEST_CASE("exec sets process memory and cpu limits in the child") {
  test::temp_tree t;
  auto ctx = t.ctx();
  ctx.exec.max_memory_mb = 300;
  ctx.exec.max_cpu_s = 7;
  ctx.exec.max_processes = 64;
  auto out = test::run(ctx, "exec",
                       {{"command", "ulimit -d; ulimit -t; ulimit -c"}});
  REQUIRE_FALSE(out.is_error);
  CHECK(has(out.content, std::to_string(300 * 1024) + "\n7\n0\n"));
  // The default CPU limit follows the timeout.
  auto dflt = test::run(t.ctx(), "exec",
                        {{"command", "ulimit -t"}, {"timeout", 9}});
  CHECK(has(dflt.content, "14\n"));
}

TEST_CASE("exec memory limit stops a child that allocates too much") {
  test::temp_tree t;
  auto ctx = t.ctx();
  ctx.exec.max_memory_mb = 64;
  auto out = test::run(ctx, "exec",
                       {{"command", "x=$(head -c 300000000 /dev/zero | tr "
                                    "'\\0' a); echo survived ${#x}"},
                        {"timeout", 60}});
  CHECK_FALSE(has(out.content, "survived 300000000"));
  CHECK_FALSE(has(out.content, "Exit code: 0"));
}

TEST_CASE("exec cpu limit stops a busy loop before the timeout") {
  test::temp_tree t;
  auto ctx = t.ctx();
  ctx.exec.max_cpu_s = 1;
  auto start = std::chrono::steady_clock::now();
  auto out = test::run(ctx, "exec",
                       {{"command", "while :; do :; done"}, {"timeout", 120}});
  CHECK_FALSE(has(out.content, "timed out"));
  // SIGXCPU (24) ended the shell; bwrap reports that as 128 + 24.
  CHECK(has(out.content, "Exit code: 152"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(100));
}

TEST_CASE("exec allowlist mode needs every segment to match") {
  test::temp_tree t;
  auto ctx = t.ctx();
  ctx.exec.allow_patterns = {"echo [a-z ]+", "ls( -l)?"};
  auto ok = test::run(ctx, "exec", {{"command", "echo hello && ls -l"}});
  CHECK_FALSE(ok.is_error);
  CHECK(has(ok.content, "hello"));
  for (auto cmd : {"echo ok & touch bad", "echo ok; touch bad",
                   "echo $(touch bad)", "echo `touch bad`", "touch bad",
                   "echo ok\ntouch bad", "echo ok | tee bad"}) {
    CAPTURE(cmd);
    auto out = test::run(ctx, "exec", {{"command", cmd}});
    CHECK(out.is_error);
    CHECK(has(out.content, "blocked by allowlist filter"));
  }
  CHECK_FALSE(t.exists("ws/bad"));
  ctx.exec.allow_patterns = {"rm -rf build"};
  t.put("ws/build/x", "1");
  auto vouched = test::run(ctx, "exec", {{"command", "rm -rf build"}});
  CHECK_FALSE(vouched.is_error);
  CHECK_FALSE(t.exists("ws/build"));
  ctx.exec.allow_patterns = {"echo ("};
  auto bad = test::run(ctx, "exec", {{"command", "echo x"}});
  CHECK(bad.is_error);
  CHECK(has(bad.content, "allow pattern 'echo (' in tools.exec.allowPatterns"));
}

TEST_CASE("exec deny patterns hold in every segment of a compound command") {
  test::temp_tree t;
  t.put("ws/keep/x", "1");
  for (auto cmd : {"echo ok && rm -rf keep", "true; rm -fr keep",
                   "false || rm -rf keep", "echo a | rm -rf keep",
                   "(cd . && rm -rf keep)", "echo ok\nrm -rf keep",
                   "sleep 0 & rm -rf keep", "echo x; mkfs.ext4 /dev/sdz",
                   "true && shutdown -h now", "echo; dd if=/dev/zero of=z",
                   "echo go && :(){ :|:& };:"}) {
    CAPTURE(cmd);
    auto out = test::run(t.ctx(), "exec", {{"command", cmd}});
    CHECK(out.is_error);
    CHECK(has(out.content, "blocked by deny pattern filter"));
  }
  auto ctx = t.ctx();
  ctx.exec.deny_patterns = {"\\bcurl\\b"};
  auto custom = test::run(ctx, "exec", {{"command", "echo a; curl x"}});
  CHECK(has(custom.content, "blocked by deny pattern filter"));
  CHECK(t.get("ws/keep/x") == "1");
}

TEST_CASE("exec never shows the gateway's keys to the child") {
  test::temp_tree t;
  ::setenv("OPENAI_API_KEY", "sk-canary-openai", 1);
  ::setenv("TELEGRAM_BOT_TOKEN", "123:canary-token", 1);
  ::setenv("NB_VISIBLE", "visible-value", 1);
  auto ctx = t.ctx();
  auto out = test::run(ctx, "exec", {{"command", "env"}});
  CHECK(has(out.content, "LANG=C.UTF-8"));
  CHECK_FALSE(has(out.content, "canary"));
  CHECK_FALSE(has(out.content, "visible-value"));
  auto direct = test::run(ctx, "exec",
                          {{"command", "printenv OPENAI_API_KEY; echo rc=$?; "
                                       "printenv TELEGRAM_BOT_TOKEN"}});
  CHECK(has(direct.content, "rc=1"));
  CHECK_FALSE(has(direct.content, "canary-"));
  ctx.exec.allowed_env_keys = {"NB_VISIBLE"};
  auto chosen = test::run(ctx, "exec", {{"command", "env"}});
  CHECK(has(chosen.content, "NB_VISIBLE=visible-value"));
  CHECK_FALSE(has(chosen.content, "canary"));
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("TELEGRAM_BOT_TOKEN");
  ::unsetenv("NB_VISIBLE");
}

TEST_CASE("exec reads a 1 GB flood without growing the gateway's memory") {
  test::temp_tree t;
  auto before = peak_rss_kb();
  auto out = test::run(t.ctx(), "exec",
                       {{"command", "head -c 1000000000 /dev/zero | tr '\\0' "
                                    "y; echo END"},
                        {"timeout", 300}});
  auto growth_kb = peak_rss_kb() - before;
  MESSAGE("peak RSS growth over a 1 GB flood: " << growth_kb << " KiB");
  REQUIRE_FALSE(out.is_error);
  CHECK(out.content.size() < 10200);
  CHECK(has(out.content, "chars truncated"));
  CHECK(has(out.content, "END\n"));
  // Everything beyond the kept head and tail was dropped as it arrived.
  CHECK(growth_kb < 32 * 1024);
}

TEST_CASE("exec blocks URLs that point inside") {
  test::temp_tree t;
  for (auto cmd : {"curl http://169.254.169.254/latest/meta-data/",
                   "echo ok && wget http://localhost:8080/",
                   "curl -s 'http://127.0.0.1:9/x'", "curl http://[::1]/",
                   "curl http://0x7f.1/", "curl http://10.1.2.3/"}) {
    CAPTURE(cmd);
    auto out = test::run(t.ctx(), "exec", {{"command", cmd}});
    CHECK(out.is_error);
    CHECK(has(out.content, "internal/private URL detected"));
  }
  auto ctx = t.ctx();
  ctx.ssrf_whitelist = {"127.0.0.0/8"};
  auto allowed = test::run(ctx, "exec",
                           {{"command", "echo http://127.0.0.1:9/x"}});
  CHECK_FALSE(allowed.is_error);
  auto plain = test::run(t.ctx(), "exec",
                         {{"command", "echo see http://example.invalid/"}});
  CHECK_FALSE(plain.is_error);
}

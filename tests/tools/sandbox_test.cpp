// exec in the bubblewrap sandbox: the command line built from the plan, and
// real commands that try to get out (base64-hidden paths the guard cannot
// see, /proc, python3 writing outside, background jobs, a fork bomb, the
// host's loopback) and find nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include <csignal>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actors/common/base64.hpp"
#include "actors/tools/sandbox/bwrap_args.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using namespace std::chrono;

namespace {

// `path` as a shell word the exec guard cannot read (the sandbox has to
// hold on its own).
std::string unseen(const std::string& path) {
  return "$(echo " + base64_encode(path) + " | base64 -d)";
}

std::string cat_hidden(const std::string& path) {
  return "cat \"" + unseen(path) + "\"";
}

// Runs `command` with bash in the sandbox `req` describes; stdout+stderr.
std::string run_in(const sandbox_request& req, const std::string& command) {
  process_options o;
  o.program = "/bin/bash";
  o.argv = {"/bin/bash", "-c", command};
  o.env = {"PATH=/usr/bin:/bin", "HOME=/nonexistent", "LANG=C.UTF-8"};
  o.cwd = req.cwd;
  o.timeout_s = 30;
  auto r = run_sandboxed(o, req, sandbox_status_for());
  return r.error + r.out.head + r.out.tail + r.err.head + r.err.tail;
}

sandbox_request request_for(const test::temp_tree& t) {
  sandbox_request req;
  req.workspace = t.ws;
  req.cwd = t.ws;
  return req;
}

bool contains_seq(const std::vector<std::string>& a,
                  std::vector<std::string> seq) {
  return std::search(a.begin(), a.end(), seq.begin(), seq.end()) != a.end();
}

size_t index_of(const std::vector<std::string>& a,
                std::vector<std::string> seq) {
  return static_cast<size_t>(
    std::search(a.begin(), a.end(), seq.begin(), seq.end()) - a.begin());
}

// A listening socket on 127.0.0.1 (port 0): what the sandbox must not reach.
struct listener {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  listener() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd, 16);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~listener() {
    ::close(fd);
  }
};

} // namespace

TEST_CASE("bwrap arguments follow the plan") {
  sandbox_plan p;
  p.workspace = "/home/u/.nanobot/workspace";
  p.cwd = p.workspace + "/src";
  p.hidden = {"/home/u/.nanobot"};
  p.ro_binds = {"/opt/tools"};
  p.network = sandbox_network::none;
  auto fake = [](const std::string& path) {
    path_kind k;
    if (path == "/bin" || path == "/lib") {
      k.kind = path_kind::symlink;
      k.target = "usr" + path;
    } else if (path == "/usr" || path == "/etc" || path == "/etc/ssh"
               || path == "/home/u/.nanobot") {
      k.kind = path_kind::dir;
    } else if (path == "/etc/shadow") {
      k.kind = path_kind::file;
    }
    return k;
  };
  auto a = bwrap_args(p, fake);
  for (auto flag : {"--unshare-user", "--unshare-pid", "--unshare-ipc",
                    "--unshare-net", "--die-with-parent", "--new-session"}) {
    CAPTURE(flag);
    CHECK(std::find(a.begin(), a.end(), flag) != a.end());
  }
  CHECK(contains_seq(a, {"--cap-drop", "ALL"}));
  CHECK(contains_seq(a, {"--uid", "65534"}));
  CHECK(contains_seq(a, {"--symlink", "usr/bin", "/bin"}));
  CHECK(contains_seq(a, {"--ro-bind", "/usr", "/usr"}));
  CHECK(contains_seq(a, {"--ro-bind", "/etc", "/etc"}));
  CHECK(contains_seq(a, {"--ro-bind", "/dev/null", "/etc/shadow"}));
  CHECK(contains_seq(a, {"--tmpfs", "/etc/ssh"}));
  CHECK(contains_seq(a, {"--proc", "/proc"}));
  CHECK(contains_seq(a, {"--ro-bind-try", "/opt/tools", "/opt/tools"}));
  CHECK(contains_seq(a, {"--bind", p.workspace, p.workspace}));
  CHECK(contains_seq(a, {"--chdir", p.cwd, "--"}));
  CHECK(a.back() == "--");
  // The config dir contains the workspace but lies in no bound tree: it
  // needs no mask (and a mask would hide the workspace).
  CHECK_FALSE(contains_seq(a, {"--tmpfs", "/home/u/.nanobot"}));
  // A config dir inside the workspace is covered after the workspace.
  p.hidden = {p.workspace + "/conf"};
  auto fake2 = [&](const std::string& path) {
    auto k = fake(path);
    if (path == p.workspace + "/conf")
      k.kind = path_kind::dir;
    return k;
  };
  auto b = bwrap_args(p, fake2);
  CHECK(index_of(b, {"--tmpfs", p.workspace + "/conf"})
        > index_of(b, {"--bind", p.workspace, p.workspace}));
  // Exposed through a bind of its parent: covered before the workspace.
  p.hidden = {"/home/u/.nanobot"};
  p.ro_binds = {"/home/u"};
  auto c = bwrap_args(p, fake);
  CHECK(index_of(c, {"--tmpfs", "/home/u/.nanobot"})
        < index_of(c, {"--bind", p.workspace, p.workspace}));
  p.network = sandbox_network::host;
  auto h = bwrap_args(p, fake);
  CHECK(std::find(h.begin(), h.end(), "--unshare-net") == h.end());
}

TEST_CASE("the sandbox is available on this machine") {
  auto& s = sandbox_status_for();
  INFO(s.problem);
  REQUIRE(s.available);
  MESSAGE("process limit: " << s.process_limit);
}

TEST_CASE("the sandbox hides everything outside the workspace") {
  test::temp_tree t;
  t.put("config.json", "{\"providers\":{\"x\":{\"apiKey\":\"sk-canary\"}}}");
  t.put("ws/mine.txt", "MINE\n");
  auto ctx = t.ctx();
  auto mine = test::run(ctx, "exec", {{"command", cat_hidden(t.ws + "/mine.txt")}});
  CHECK(has(mine.content, "MINE"));
  for (auto path : {t.root + "/config.json", t.outside + "/secret.txt",
                    t.root + "/home", std::string{"/etc/shadow"},
                    std::string{"/root"}}) {
    CAPTURE(path);
    auto out = test::run(ctx, "exec", {{"command", cat_hidden(path)}});
    CHECK_FALSE(has(out.content, "sk-canary"));
    CHECK_FALSE(has(out.content, "TOP-SECRET"));
    CHECK_FALSE(has(out.content, "root:x:"));
  }
  // A config dir inside the workspace, or the workspace itself, is masked.
  t.put("ws/.nanobot/config.json", "sk-inner-canary");
  auto req = request_for(t);
  req.config_dir = t.ws + "/.nanobot";
  CHECK_FALSE(has(run_in(req, "cat .nanobot/config.json"), "sk-inner-canary"));
  t.put("ws/config.json", "sk-same-canary");
  t.put("ws/sessions/a.jsonl", "sk-session-canary");
  req.config_dir = t.ws;
  req.config_file = t.ws + "/config.json";
  auto same = run_in(req, "cat config.json sessions/a.jsonl; cat mine.txt");
  CHECK_FALSE(has(same, "canary"));
  CHECK(has(same, "MINE"));
}

TEST_CASE("the sandbox cannot write outside the workspace") {
  test::temp_tree t;
  auto target = t.outside + "/pwned";
  auto out = test::run(
    t.ctx(), "exec",
    {{"command", "python3 -c \"import sys; open(sys.argv[1],'w').write('x')\" "
                   + unseen(target) + "; touch " + unseen("/usr/pwned")
                   + "; echo done"}});
  INFO(out.content);
  CHECK(has(out.content, "done"));
  CHECK_FALSE(t.exists("outside/pwned"));
  CHECK(::access("/usr/pwned", F_OK) != 0);
  auto inside = test::run(t.ctx(), "exec",
                          {{"command", "python3 -c \"open('made','w').write('ok')\""}});
  CHECK(t.get("ws/made") == "ok");
}

TEST_CASE("the sandbox sees only its own processes") {
  test::temp_tree t;
  auto me = std::to_string(::getpid());
  auto out = test::run(
    t.ctx(), "exec",
    {{"command", "echo pid=$$ ppid=$PPID; ls " + unseen("/proc")
                   + " | grep -c '^[0-9]'; cat " + unseen("/proc/" + me + "/environ")
                   + "; echo; kill -9 " + me + "; kill -9 $PPID; kill -9 -1; "
                     "echo alive"}});
  INFO(out.content);
  CHECK(has(out.content, "pid=2 ppid=1"));
  CHECK(has(out.content, "alive"));
  CHECK_FALSE(has(out.content, "PATH="));
  CHECK(::kill(::getpid(), 0) == 0);
}

TEST_CASE("a fork bomb in the sandbox stops at the process limit") {
  test::temp_tree t;
  auto ctx = t.ctx();
  ctx.exec.max_processes = 64;
  std::atomic<bool> running{true};
  size_t most = 0;
  std::thread watch{[&] {
    while (running) {
      auto family = nb::test::family_of(::getpid(), nb::test::all_procs());
      most = std::max(most, family.size() - 1);
      std::this_thread::sleep_for(milliseconds(20));
    }
  }};
  auto start = steady_clock::now();
  auto out = test::run(ctx, "exec",
                       {{"command", "b(){ b|b& };b"}, {"timeout", 3}});
  auto took = duration_cast<milliseconds>(steady_clock::now() - start);
  running = false;
  watch.join();
  MESSAGE("fork bomb: at most " << most << " processes, ended after "
                                << took.count() << " ms ("
                                << sandbox_status_for().process_limit << ")");
  if (!sandbox_status_for().process_limit.empty())
    CHECK(most <= 64 + 8); // the limit plus this test's other threads' kin
  CHECK(took < seconds(30));
  CHECK(nb::test::descendants_named("bash").empty());
  // The machine still answers: another command runs normally.
  INFO(out.content);
  auto after = test::run(t.ctx(), "exec", {{"command", "echo fine"}});
  INFO(after.content);
  CHECK(has(after.content, "fine"));
}

TEST_CASE("the sandbox network: none loopback-denied and host") {
  test::temp_tree t;
  listener host;
  auto probe = "(exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(host.port)
               + ") 2>/dev/null && echo reached || echo refused";
  auto req = request_for(t);
  for (auto mode : {"none", "loopback-denied"}) {
    CAPTURE(mode);
    req.network = mode;
    auto out = run_in(req, probe);
    INFO(out);
    CHECK(has(out, "refused"));
  }
  // slirp's alias for the host (10.0.2.2) and the private ranges are out
  // of reach too.
  req.network = "loopback-denied";
  auto alias = run_in(req, "(exec 3<>/dev/tcp/10.0.2.2/" + std::to_string(host.port)
                             + ") 2>/dev/null && echo reached || echo refused; "
                               "(exec 3<>/dev/tcp/192.168.1.1/80) 2>&1");
  INFO(alias);
  CHECK(has(alias, "refused"));
  CHECK(has(alias, "No route to host"));
  req.network = "host";
  CHECK(has(run_in(req, probe), "reached"));
  // exec itself uses loopback-denied.
  auto hidden_probe = "(exec 3<>" + unseen("/dev/tcp/127.0.0.1/" + std::to_string(host.port))
                      + ") 2>/dev/null && echo reached || echo refused";
  auto through_exec = test::run(t.ctx(), "exec", {{"command", hidden_probe}});
  CHECK(has(through_exec.content, "refused"));
  // tools.exec.network reaches exec: "host" opens the host's loopback.
  auto ctx = t.ctx();
  ctx.exec.network = "host";
  auto opened = test::run(ctx, "exec", {{"command", hidden_probe}});
  INFO(opened.content);
  CHECK(has(opened.content, "reached"));
}

TEST_CASE("tools.exec.sandbox bwrap sandboxes exec and the file tools without restrictToWorkspace") {
  test::temp_tree t;
  auto cfg = test::settings_for(t.ws);
  cfg.tools.restrict_to_workspace = false;
  cfg.tools.exec.sandbox = "bwrap";
  auto ctx = make_tool_context(cfg, "cli:direct");
  CHECK(ctx.restrict_to_workspace);
  auto secret = t.get("outside/secret.txt");
  REQUIRE_FALSE(secret.empty());
  auto shell = test::run(ctx, "exec",
                         {{"command", cat_hidden(t.root + "/outside/secret.txt")}});
  INFO(shell.content);
  CHECK_FALSE(has(shell.content, secret));
  auto file = test::run(ctx, "read_file",
                        {{"path", t.root + "/outside/secret.txt"}});
  CHECK(file.is_error);
  cfg.tools.exec.sandbox.clear();
  CHECK_FALSE(make_tool_context(cfg, "cli:direct").restrict_to_workspace);
}

TEST_CASE("sandboxRoBinds and sandboxRwBinds show more trees to exec") {
  test::temp_tree t;
  t.put("shared/notes.txt", "shared notes");
  t.put("scratch/.keep", "");
  auto ctx = t.ctx();
  ctx.exec.sandbox_ro_binds = {t.root + "/shared"};
  ctx.exec.sandbox_rw_binds = {t.root + "/scratch"};
  auto read = test::run(ctx, "exec", {{"command", "cat " + t.root + "/shared/notes.txt"}});
  INFO(read.content);
  CHECK(has(read.content, "shared notes"));
  auto write_ro = test::run(
    ctx, "exec", {{"command", "echo x > " + t.root + "/shared/new.txt 2>&1; echo done"}});
  INFO(write_ro.content);
  CHECK(has(write_ro.content, "Read-only file system"));
  CHECK_FALSE(t.exists("shared/new.txt"));
  auto write_rw = test::run(
    ctx, "exec", {{"command", "echo kept > " + t.root + "/scratch/out.txt"}});
  INFO(write_rw.content);
  CHECK(t.get("scratch/out.txt") == "kept\n");
  // Outside the binds the guard still refuses.
  auto outside = test::run(ctx, "exec", {{"command", "cat " + t.root + "/outside/secret.txt"}});
  CHECK(outside.is_error);
}

TEST_CASE("the config file stays hidden from a sandbox whose workspace holds it") {
  test::temp_tree t;
  t.put("ws/config.json", R"({"providers": {"x": {"apiKey": "sk-hidden"}}})");
  t.put("ws/sessions/cli_direct.jsonl", "a private chat");
  t.put("ws/notes.txt", "the agent's own notes");
  auto config = t.ws + "/config.json";
  auto cfg = test::settings_for(t.ws);
  cfg.config_path = config;
  auto ctx = make_tool_context(cfg, "cli:direct");
  auto out = test::run(ctx, "exec",
                       {{"command", "cat config.json sessions/* notes.txt 2>&1"}});
  INFO(out.content);
  CHECK_FALSE(has(out.content, "sk-hidden"));
  CHECK_FALSE(has(out.content, "a private chat"));
  CHECK(has(out.content, "the agent's own notes"));
}

TEST_CASE("without bwrap the sandbox is unavailable and says how to install it") {
  auto& missing = sandbox_status_for("/nonexistent/bwrap");
  CHECK_FALSE(missing.available);
  auto text = sandbox_unavailable_text(missing);
  CHECK(has(text, "exec is disabled"));
  CHECK(has(text, "apt-get install bubblewrap"));
  settings cfg;
  CHECK(has(describe_sandbox(cfg, missing), "unavailable, exec refused"));
  CHECK(has(describe_sandbox(cfg, sandbox_status_for()), "bubblewrap"));
  cfg.tools.restrict_to_workspace = false;
  CHECK(has(describe_sandbox(cfg, missing), "unsandboxed"));
  // Unrestricted, exec runs without a sandbox.
  test::temp_tree t;
  auto open = test::run(t.ctx(false), "exec", {{"command", "echo hi"}});
  CHECK_FALSE(open.is_error);
}

// The exec guard: deny patterns incl. newline smuggling, writes to agent
// state, and paths outside the workspace named in the command (A14, A15,
// A24), each refused before anything is spawned.
#include <doctest/doctest.h>

#include <algorithm>

#include "actors/tools/exec_guard.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

// Every blocked command starts with "touch spawned": if anything ran, the
// marker file exists.
void blocked(const test::temp_tree& t, const tool_context& ctx,
             const std::string& tail, const std::string& expect) {
  auto command = "touch spawned; " + tail;
  CAPTURE(command);
  auto out = test::run(ctx, "exec", {{"command", command}});
  CHECK(out.is_error);
  CHECK(has(out.content, expect));
  CHECK_FALSE(t.exists("ws/spawned"));
}

const char* denied = "Error: Command blocked by deny pattern filter";
const char* outside = "Error: Command blocked by safety guard (path outside "
                      "working dir)";

} // namespace

TEST_CASE("exec deny list blocks destructive commands before spawning") {
  test::temp_tree t;
  for (auto cmd : {"rm -rf x", "rm -fr x", "rm -r x", "RM -RF x",
                   "mkfs.ext4 /dev/sdz", "dd if=/dev/zero of=x",
                   "echo > /dev/sda", "shutdown -h now", "reboot",
                   "format c:", ":(){ :|:& };:", "echo ok\nrm -rf x",
                   "echo ok\nformat c:", "echo ok && rm \\\n-rf x",
                   "del /f x", "rmdir /s x"})
    blocked(t, t.ctx(false), cmd, denied);
}

TEST_CASE("exec deny list protects the agent state files") {
  test::temp_tree t;
  for (auto cmd : {"echo x >> memory/history.jsonl",
                   "echo x > memory/history.jsonl", "cp a memory/history.jsonl",
                   "mv a .dream_cursor", "sed -i s/a/b/ .dream_cursor",
                   "echo x | tee -a memory/history.jsonl",
                   "dd of=memory/history.jsonl"})
    blocked(t, t.ctx(false), cmd, denied);
  auto read = test::run(t.ctx(), "exec",
                        {{"command", "cat memory/history.jsonl; true"}});
  CHECK_FALSE(read.is_error);
}

TEST_CASE("exec deny list lets ordinary commands through") {
  for (auto cmd : {"ls -la", "echo format=1", "echo reformat", "git status",
                   "cat cp_notes.txt", "grep -r information ."})
    CHECK(check_deny_patterns(cmd, {}).empty());
}

TEST_CASE("exec applies configured deny patterns and reports bad ones") {
  test::temp_tree t;
  auto ctx = t.ctx(false);
  ctx.exec.deny_patterns = {R"(\bcurl\b)", R"((?:wget)\s+\S+)"};
  blocked(t, ctx, "curl http://example.com", denied);
  blocked(t, ctx, "wget example.com", denied);
  CHECK_FALSE(test::run(ctx, "exec", {{"command", "echo curly"}}).is_error);
  ctx.exec.deny_patterns = {"(unclosed"};
  blocked(t, ctx, "echo hi", "the deny pattern '(unclosed' in "
                             "tools.exec.denyPatterns is not a valid");
}

TEST_CASE("exec blocks paths outside the workspace named in the command") {
  test::temp_tree t;
  t.put("home/.nanobot/config.json", "{\"apiKey\":\"TOP-SECRET\"}");
  for (auto cmd : {"cat ~/.nanobot/config.json", "cat ~root/x",
                   "cat /etc/passwd", "FOO=~/x env", "cat \"/etc/hostname\"",
                   "cat file:///etc/passwd", "sh -c \"cat /etc/hostname\"",
                   "cat //etc/passwd", "echo x >/tmp/nb-escape",
                   "cat $HOME/.nanobot/config.json", "cat ${HOME}/x",
                   "ls --dir=/etc", "cat '/etc/passwd'", "$(cat /etc/x)"})
    blocked(t, t.ctx(), cmd, outside);
  blocked(t, t.ctx(), "cat ~-/x", outside);
  blocked(t, t.ctx(), "cat ../outside/secret.txt",
          "Error: Command blocked by safety guard (path traversal detected)");
  REQUIRE(::symlink(t.outside.c_str(), (t.ws + "/out").c_str()) == 0);
  blocked(t, t.ctx(), "cat " + t.ws + "/out/secret.txt", outside);
  blocked(t, t.ctx(), "cat out/secret.txt", outside);
  blocked(t, t.ctx(), "ls out", outside);
  blocked(t, t.ctx(), "cat 'out'/secret.txt", outside);
}

TEST_CASE("exec path guard allows the workspace and harmless devices") {
  test::temp_tree t;
  t.put("ws/src/a.txt", "alpha");
  for (auto cmd : {std::string{"cat src/a.txt"},
                   "cat " + t.ws + "/src/a.txt",
                   std::string{"cat src/a.txt 2>/dev/null >/dev/null; echo ok"},
                   std::string{"echo https://example.invalid/x/y"},
                   std::string{"echo a/b/c"}, std::string{"cat ~+/src/a.txt"},
                   std::string{"cat ~nosuchuser123/x || true"}}) {
    auto out = test::run(t.ctx(), "exec", {{"command", cmd}, {"timeout", 20}});
    CAPTURE(cmd);
    CHECK_FALSE(out.is_error);
  }
}

TEST_CASE("exec path extraction finds paths in the usual places") {
  auto paths = extract_command_paths(
    "A=/x:/y cat /a \"/b c\" '/d' >/e ~/f --o=/g file:///h%20i "
    "bash -c 'ls /j' http://host/k");
  for (auto p : {"/x", "/y", "/a", "/b c", "/d", "/e", "~/f", "/g", "/h i",
                 "/j"}) {
    CAPTURE(p);
    CHECK(std::find(paths.begin(), paths.end(), p) != paths.end());
  }
  CHECK(std::find(paths.begin(), paths.end(), "/k") == paths.end());
  CHECK(split_shell_segments("a && b || c; d | e & f\ng 'h;i' $(j;k)")
        == std::vector<std::string>{"a", "b", "c", "d", "e &", "f",
                                    "g 'h;i' $(j;k)"});
}

// The path containment matrix (A1-A8, A11, A13): every hostile path shape
// against read_file, write_file, edit_file, list_dir, grep, find_files and
// exec working_dir.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include "actors/tools/workspace_guard.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

void link(const std::string& target, const std::string& at) {
  REQUIRE(::symlink(target.c_str(), at.c_str()) == 0);
}

// Runs every file tool on `path`; each must fail with `expect` in the text,
// without the secret leaking and without writing anything outside.
void refuse_everywhere(const test::temp_tree& t, const std::string& path,
                       const std::string& expect) {
  auto ctx = t.ctx();
  std::vector<std::pair<std::string, json>> calls{
    {"read_file", {{"path", path}}},
    {"list_dir", {{"path", path}}},
    {"write_file", {{"path", path}, {"content", "PWNED"}}},
    {"edit_file",
     {{"path", path}, {"old_text", "TOP-SECRET"}, {"new_text", "PWNED"}}},
    {"edit_file", {{"path", path}, {"old_text", ""}, {"new_text", "PWNED"}}},
    {"grep", {{"pattern", "SECRET"}, {"path", path}}},
    {"grep",
     {{"pattern", "SECRET"}, {"path", path}, {"output_mode", "content"}}},
    {"find_files", {{"path", path}}},
  };
  for (auto& [tool, args] : calls) {
    CAPTURE(tool);
    CAPTURE(path);
    auto out = test::run(ctx, tool, args);
    CHECK(out.is_error);
    CHECK(has(out.content, expect));
    CHECK_FALSE(has(out.content, "TOP-SECRET"));
    CHECK_FALSE(has(out.content, "EVIL-SECRET"));
  }
  CHECK(t.get("outside/secret.txt") == "TOP-SECRET\n");
  CHECK(t.get("ws-evil/secret.txt") == "EVIL-SECRET\n");
}

const char* outside_text = "is outside allowed directory";

} // namespace

TEST_CASE("guard blocks traversal shapes for every file tool") {
  test::temp_tree t;
  for (auto p : {"../outside/secret.txt", "src/../../outside/secret.txt",
                 "./src/./../../outside/secret.txt", "..", "../"})
    refuse_everywhere(t, p, outside_text);
  auto out = test::run(t.ctx(), "read_file",
                       {{"path", "../outside/secret.txt"}});
  CHECK(has(out.content, "Error: Path ../outside/secret.txt is outside "
                         "allowed directory "
                           + t.ws));
  CHECK(has(out.content, "hard policy boundary"));
}

TEST_CASE("guard blocks absolute and home paths outside the workspace") {
  test::temp_tree t;
  t.put("home/.ssh/id_rsa", "TOP-SECRET key");
  t.put("home/.nanobot/config.json", "{\"apiKey\":\"TOP-SECRET\"}");
  for (auto p : {t.outside + "/secret.txt", std::string{"/etc/passwd"},
                 std::string{"~/.ssh/id_rsa"}, std::string{"~/.nanobot/config.json"},
                 std::string{"~"}, t.outside + "//secret.txt"})
    refuse_everywhere(t, p, outside_text);
  CHECK(t.get("home/.ssh/id_rsa") == "TOP-SECRET key");
}

TEST_CASE("guard compares path components not string prefixes") {
  test::temp_tree t;
  refuse_everywhere(t, t.root + "/ws-evil/secret.txt", outside_text);
  refuse_everywhere(t, "../ws-evil/secret.txt", outside_text);
  CHECK(path_within("/w/ws", "/w/ws"));
  CHECK(path_within("/w/ws/a", "/w/ws"));
  CHECK_FALSE(path_within("/w/ws-evil", "/w/ws"));
  CHECK_FALSE(path_within("/w/wsx/a", "/w/ws"));
  CHECK(path_within("/anything", "/"));
}

TEST_CASE("guard blocks a leaf symlink that points outside") {
  test::temp_tree t;
  link(t.outside + "/secret.txt", t.ws + "/leak");
  link(t.outside, t.ws + "/outdir");
  refuse_everywhere(t, "leak", outside_text);
  refuse_everywhere(t, "outdir", outside_text);
  refuse_everywhere(t, "outdir/secret.txt", outside_text);
}

TEST_CASE("guard blocks writes through a dangling symlink") {
  test::temp_tree t;
  link(t.outside + "/new.txt", t.ws + "/new");
  link(t.root + "/nowhere/deeper", t.ws + "/deep");
  refuse_everywhere(t, "new", outside_text);
  refuse_everywhere(t, "deep/file.txt", outside_text);
  CHECK_FALSE(t.exists("outside/new.txt"));
  CHECK_FALSE(t.exists("nowhere"));
}

TEST_CASE("guard resolves symlink then dotdot on the real parent chain") {
  test::temp_tree t;
  std::filesystem::create_directories(t.ws + "/sub");
  link("..", t.ws + "/sub/up");
  // Lexically sub/up/.. is sub, but up is the workspace itself.
  refuse_everywhere(t, "sub/up/../outside/secret.txt", outside_text);
  auto ok = test::run(t.ctx(), "write_file",
                      {{"path", "sub/up/inside.txt"}, {"content", "fine"}});
  CHECK_FALSE(ok.is_error);
  CHECK(t.get("ws/inside.txt") == "fine");
}

TEST_CASE("guard stops on symlink cycles and long chains") {
  test::temp_tree t;
  link("b", t.ws + "/a");
  link("a", t.ws + "/b");
  auto start = std::chrono::steady_clock::now();
  refuse_everywhere(t, "a/x", "Too many levels of symbolic links");
  auto name = [](int i) {
    std::string s(1, 'l');
    s += std::to_string(i);
    return s;
  };
  for (int i = 0; i < 100; ++i)
    link(name(i + 1), t.ws + "/" + name(i));
  t.put("ws/l100", "end");
  refuse_everywhere(t, "l0", "Too many levels of symbolic links");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("guard rejects NUL bytes and overlong paths") {
  test::temp_tree t;
  refuse_everywhere(t, std::string("a\0b", 3), "NUL byte");
  refuse_everywhere(t, std::string(65536, 'a'), "too long");
  std::string deep;
  for (int i = 0; i < 5000; ++i)
    deep += "a/";
  refuse_everywhere(t, deep, "too long");
  refuse_everywhere(t, std::string(300, 'n'), "component is too long");
}

TEST_CASE("guard refuses devices and FIFOs even without restriction") {
  test::temp_tree t;
  link("/dev/zero", t.ws + "/zero");
  REQUIRE(::mkfifo((t.ws + "/fifo").c_str(), 0600) == 0);
  for (bool restrict : {true, false}) {
    auto ctx = t.ctx(restrict);
    for (auto p : {"/dev/zero", "/dev/random", "/dev/urandom",
                   "/proc/self/fd/0", "/dev/stdin", "zero"}) {
      CAPTURE(p);
      auto out = test::run(ctx, "read_file", {{"path", p}});
      CHECK(out.is_error);
      CHECK(has(out.content, "is blocked (device path"));
      auto w = test::run(ctx, "write_file", {{"path", p}, {"content", "x"}});
      CHECK(w.is_error);
    }
    // Never opened for reading, so this returns instead of blocking.
    auto fifo = test::run(ctx, "read_file", {{"path", "fifo"}});
    CHECK(fifo.is_error);
    CHECK(has(fifo.content, "not a regular file"));
    auto edit = test::run(ctx, "edit_file",
                          {{"path", "fifo"}, {"old_text", "a"},
                           {"new_text", "b"}});
    CHECK(edit.is_error);
  }
}

TEST_CASE("guard allows ordinary paths inside the workspace") {
  test::temp_tree t;
  t.put("ws/src/a.txt", "alpha\n");
  link("src/a.txt", t.ws + "/alias");
  auto ctx = t.ctx();
  for (auto p : {std::string{"src/a.txt"}, t.ws + "/src/a.txt",
                 std::string{"./src/../src/a.txt"}, std::string{"alias"}}) {
    auto out = test::run(ctx, "read_file", {{"path", p}});
    CAPTURE(p);
    CHECK_FALSE(out.is_error);
    CHECK(has(out.content, "1| alpha"));
  }
}

TEST_CASE("guard lets an unrestricted context read outside the workspace") {
  test::temp_tree t;
  auto out = test::run(t.ctx(false), "read_file",
                       {{"path", t.outside + "/secret.txt"}});
  CHECK_FALSE(out.is_error);
  CHECK(has(out.content, "TOP-SECRET"));
}

TEST_CASE("guard keeps exec working_dir inside the workspace") {
  test::temp_tree t;
  link(t.outside, t.ws + "/out");
  for (auto dir : {std::string{"/etc"}, std::string{"../outside"}, t.outside,
                   std::string{"out"}, t.root + "/ws-evil", std::string{"~"}}) {
    CAPTURE(dir);
    auto out = test::run(t.ctx(), "exec",
                         {{"command", "touch ran; rm -rf ./x"},
                          {"working_dir", dir}});
    CHECK(out.is_error);
    CHECK_FALSE(t.exists("outside/ran"));
    CHECK_FALSE(t.exists("ws-evil/ran"));
  }
  auto plain = test::run(t.ctx(), "exec",
                         {{"command", "pwd"}, {"working_dir", "/etc"}});
  CHECK(has(plain.content, "working_dir is outside the configured workspace"));
  auto inside = test::run(t.ctx(), "exec",
                          {{"command", "pwd"}, {"working_dir", "src"}});
  CHECK_FALSE(inside.is_error);
  CHECK(has(inside.content, t.ws + "/src"));
  auto dflt = test::run(t.ctx(), "exec", {{"command", "pwd"}});
  CHECK(has(dflt.content, t.ws + "\n"));
}

// Session files under faults: I/O errors reported as errors (never "corrupt,
// start empty"), failed writes that keep the old file, a writer killed with
// SIGKILL mid-append, and the sessions directory layout and modes.
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <thread>

#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "tests/store/temp_dir.hpp"

namespace {

using namespace nb;
using nb::test::list_dir;
using nb::test::mode_of;
using nb::test::slurp;
using nb::test::spit;
using nb::test::temp_dir;
using json = nlohmann::json;

std::string fault_line(const std::string& content, int seq = 0) {
  return json{{"role", "user"}, {"content", content}, {"seq", seq}}.dump();
}

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

// Runs `f` in a forked child (plain file I/O only) and returns its exit
// code, or -1 when it did not exit normally.
int in_child(const std::function<int()>& f) {
  pid_t pid = ::fork();
  if (pid == 0)
    ::_exit(f());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Makes file writes past `bytes` fail with EFBIG in this (child) process.
void limit_file_size(rlim_t bytes) {
  ::signal(SIGXFSZ, SIG_IGN);
  rlimit rl{};
  ::getrlimit(RLIMIT_FSIZE, &rl);
  rl.rlim_cur = bytes;
  ::setrlimit(RLIMIT_FSIZE, &rl);
}

} // namespace

TEST_CASE("the sessions dir is per workspace id with private modes") {
  temp_dir d;
  auto cfg = d.path + "/home/.nanobot";
  auto ws = d.path + "/ws";
  auto r = resolve_sessions_dir(cfg, ws);
  REQUIRE_MESSAGE(r, nb::test::why(r));
  auto id_file = ws + "/.nanobot/workspace-id";
  auto id = slurp(id_file);
  REQUIRE(id.size() == 33);
  id.pop_back();
  CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(*r == cfg + "/sessions/" + id);
  CHECK(mode_of(cfg) == 0700);
  CHECK(mode_of(cfg + "/sessions") == 0700);
  CHECK(mode_of(*r) == 0700);
  CHECK(mode_of(id_file) == 0600);
  CHECK(list_dir(ws + "/.nanobot") == std::set<std::string>{"workspace-id"});
  auto again = resolve_sessions_dir(cfg, ws);
  REQUIRE(again);
  CHECK(*again == *r);

  // Files made by append are private too.
  REQUIRE_FALSE(append_session(*r, "k", {fault_line("x")}));
  CHECK(mode_of(*r + "/" + session_file_name("k")) == 0600);
}

TEST_CASE("an existing workspace id is used and a bad one is an error") {
  temp_dir d;
  auto ws = d.path + "/ws";
  std::filesystem::create_directories(ws + "/.nanobot");
  spit(ws + "/.nanobot/workspace-id", "0123456789abcdef0123456789abcdef\n");
  auto r = resolve_sessions_dir(d.path + "/cfg", ws);
  REQUIRE(r);
  CHECK(*r == d.path + "/cfg/sessions/0123456789abcdef0123456789abcdef");

  // The original accepts lower-case hex only.
  spit(ws + "/.nanobot/workspace-id", "0123456789abcdef0123456789ABCDEF\n");
  auto upper = resolve_sessions_dir(d.path + "/cfg", ws);
  REQUIRE_FALSE(upper);
  CHECK(contains(store_error_text(upper.error()), "workspace-id"));

  spit(ws + "/.nanobot/workspace-id", "not-an-id\n");
  auto bad = resolve_sessions_dir(d.path + "/cfg", ws);
  REQUIRE_FALSE(bad);
  CHECK(contains(store_error_text(bad.error()), "workspace-id"));
  CHECK(slurp(ws + "/.nanobot/workspace-id") == "not-an-id\n");

  spit(d.path + "/file", "x");
  auto blocked = resolve_sessions_dir(d.path + "/file", d.path + "/ws2");
  REQUIRE_FALSE(blocked);
  CHECK(contains(store_error_text(blocked.error()), "Not a directory"));
}

TEST_CASE("I/O errors are reported and never read as an empty session") {
  temp_dir d;
  auto path = d.path + "/" + session_file_name("k");
  // We run as root, where chmod 000 changes nothing: a directory where the
  // file belongs gives EISDIR on every operation instead.
  std::filesystem::create_directory(path);
  auto r = load_session(d.path, "k");
  REQUIRE_FALSE(r);
  auto text = store_error_text(r.error());
  CHECK(contains(text, path));
  CHECK(contains(text, "Is a directory"));
  auto a = append_session(d.path, "k", {fault_line("x")});
  CHECK(contains(store_error_text(a), "Is a directory"));
  auto p = replace_session(d.path, "k", "{}", {fault_line("x")});
  CHECK(contains(store_error_text(p), "Is a directory"));
  CHECK(list_dir(d.path) == std::set<std::string>{session_file_name("k")});

  // The sessions directory itself is a file.
  spit(d.path + "/plain", "x");
  auto n = append_session(d.path + "/plain", "k", {fault_line("x")});
  CHECK(contains(store_error_text(n), "Not a directory"));

  if (::geteuid() != 0) {
    auto f = d.path + "/" + session_file_name("locked");
    spit(f, fault_line("secret") + "\n");
    std::filesystem::permissions(f, std::filesystem::perms::none);
    auto locked = load_session(d.path, "locked");
    REQUIRE_FALSE(locked);
    CHECK(contains(store_error_text(locked.error()), "Permission denied"));
  }
}

TEST_CASE("a failed replace keeps the old file and removes its temp file") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "k", {fault_line("old")}));
  auto path = d.path + "/" + session_file_name("k");
  auto before = slurp(path);
  int code = in_child([&] {
    limit_file_size(4096); // the temp file's write fails with EFBIG
    auto err =
      replace_session(d.path, "k", "{}", {fault_line(std::string(9000, 'y'))});
    if (!err)
      return 1;
    return contains(store_error_text(err), "File too large") ? 0 : 2;
  });
  CHECK(code == 0);
  CHECK(slurp(path) == before);
  CHECK(list_dir(d.path) == std::set<std::string>{session_file_name("k")});
}

TEST_CASE("a failed append leaves a file that loads and takes more appends") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "k", {fault_line("kept", 0)}));
  int code = in_child([&] {
    limit_file_size(4096); // the write stops part way: a cut line
    auto err =
      append_session(d.path, "k", {fault_line(std::string(9000, 'y'), 1)});
    return err ? 0 : 1;
  });
  CHECK(code == 0);
  auto s = load_session(d.path, "k");
  REQUIRE(s);
  CHECK(s->skipped_lines == 1);
  REQUIRE(s->messages.size() == 1);
  CHECK(json::parse(s->messages[0])["content"] == "kept");
  REQUIRE_FALSE(append_session(d.path, "k", {fault_line("after", 2)}));
  auto t = load_session(d.path, "k");
  REQUIRE(t);
  REQUIRE(t->messages.size() == 2);
  CHECK(json::parse(t->messages[1])["content"] == "after");
}

TEST_CASE("a writer killed with SIGKILL mid append leaves a loadable file") {
  temp_dir d;
  pid_t pid = ::fork();
  if (pid == 0) {
    // Lines of up to 1 MiB, so that the kill may land inside a write.
    for (int i = 0;; ++i) {
      auto size = static_cast<size_t>((i * 7919) % (1 << 20));
      if (append_session(d.path, "k", {fault_line(std::string(size, 'x'), i)}))
        ::_exit(2);
    }
  }
  REQUIRE(pid > 0);
  struct reaper {
    pid_t pid;
    ~reaper() {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  };
  {
    reaper r{pid};
    auto path = d.path + "/" + session_file_name("k");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      struct stat st;
      if (::stat(path.c_str(), &st) == 0 && st.st_size > (8 << 20))
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } // SIGKILL, reaped

  auto s = load_session(d.path, "k");
  REQUIRE_MESSAGE(s, nb::test::why(s));
  CHECK(s->skipped_lines <= 1); // at most the line being written
  REQUIRE(s->messages.size() >= 8);
  for (size_t i = 0; i < s->messages.size(); ++i)
    CHECK(json::parse(s->messages[i])["seq"] == i);
  auto n = s->messages.size();
  REQUIRE_FALSE(
    append_session(d.path, "k", {fault_line("after the crash", -1)}));
  auto t = load_session(d.path, "k");
  REQUIRE(t);
  REQUIRE(t->messages.size() == n + 1);
  CHECK(json::parse(t->messages.back())["content"] == "after the crash");
}

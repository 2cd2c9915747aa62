// spawn_child: the child starts in the gateway's memory until it execs
// (a vfork-style clone), so starting one copies no page tables and leaves
// no page write-protected behind it; the child still gets its descriptors,
// limits and signals as before, and an exec failure is reported.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/tools/child_spawn.hpp"

using namespace nb;

namespace {

long minor_faults() {
  struct rusage ru;
  ::getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_minflt;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

/// What `sh -c script` wrote to its stdout.
std::string run_sh(const std::string& script, child_spec spec = {}) {
  int out[2];
  REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
  spec.program = "/bin/sh";
  spec.argv = {"sh", "-c", script};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.stdout_fd = out[1];
  std::string error;
  auto pid = spawn_child(spec, error);
  ::close(out[1]);
  REQUIRE_MESSAGE(pid > 0, error);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0)
    text.append(buf, static_cast<size_t>(n));
  ::close(out[0]);
  wait_for(pid);
  return text;
}

} // namespace

TEST_CASE("starting a child leaves the gateway's memory as it was") {
  // 64 MB written once, in 4 KB pages: fork would write-protect each page
  // for copy-on-write, and the next write to it would fault even after
  // the child has exec'd.
  constexpr size_t bytes = 64u << 20;
  constexpr size_t pages = bytes / 4096;
  void* mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  ::madvise(mem, bytes, MADV_NOHUGEPAGE);
  auto* p = static_cast<char*>(mem);
  std::memset(p, 1, bytes);
  // A fork by another thread of this process (a test before this one may
  // have left one running) write-protects the pages too: the fewest faults
  // of three rounds is what a child's start itself costs.
  long fewest = static_cast<long>(pages);
  for (int round = 0; round < 3; ++round) {
    child_spec spec;
    spec.program = "/bin/true";
    spec.argv = {"true"};
    std::string error;
    auto pid = spawn_child(spec, error);
    REQUIRE_MESSAGE(pid > 0, error);
    CHECK(WEXITSTATUS(wait_for(pid)) == 0);
    auto before = minor_faults();
    for (size_t i = 0; i < bytes; i += 4096)
      p[i] = static_cast<char>(round);
    fewest = std::min(fewest, minor_faults() - before);
  }
  MESSAGE("page faults writing ", pages, " pages after a child's start: ",
          fewest);
  CHECK(fewest < static_cast<long>(pages / 16));
  ::munmap(mem, bytes);
}

TEST_CASE("a child gets its limits, its group and the default signals") {
  // The test process ignores SIGPIPE (as the gateway does); the child
  // must not inherit that, nor a blocked mask.
  child_spec spec;
  spec.limits.memory_mb = 300;
  spec.limits.cpu_s = 7;
  spec.new_group = true;
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  auto text = run_sh("ulimit -d; ulimit -t; ulimit -c; "
                     "grep -E '^(SigBlk|SigIgn)' /proc/self/status; "
                     "read -r pid comm state ppid pgrp rest < /proc/$$/stat; echo $pid $pgrp",
                     spec);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  CHECK(text.find(std::to_string(300 * 1024) + "\n7\n0\n") == 0);
  CHECK(text.find("SigBlk:\t0000000000000000") != std::string::npos);
  CHECK(text.find("SigIgn:\t0000000000000000") != std::string::npos);
  // Its own process group: pgid == pid.
  auto ps = text.substr(text.rfind("\n", text.size() - 2) + 1);
  int pid = 0, pgid = -1;
  REQUIRE(std::sscanf(ps.c_str(), "%d %d", &pid, &pgid) == 2);
  CHECK(pid == pgid);
}

TEST_CASE("a program that cannot start is reported, not run") {
  child_spec spec;
  spec.program = "/no/such/program";
  spec.argv = {"nothing"};
  std::string error;
  CHECK(spawn_child(spec, error) == -1);
  CHECK(error == std::strerror(ENOENT));
  spec.program = "/bin/true";
  spec.cwd = "/no/such/directory";
  error.clear();
  CHECK(spawn_child(spec, error) == -1);
  CHECK(error == std::strerror(ENOENT));
}

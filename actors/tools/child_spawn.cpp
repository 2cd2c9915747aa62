#include "actors/tools/child_spawn.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nb {

namespace {

// Only async-signal-safe calls from here on: the parent is multithreaded.
[[noreturn]] void child_fail(int report_fd, int err) {
  auto n = ::write(report_fd, &err, sizeof err);
  (void)n;
  ::_exit(127);
}

void set_limit(int resource, uint64_t value, uint64_t hard_extra = 0) {
  struct rlimit rl;
  if (::getrlimit(resource, &rl) != 0)
    return;
  rlim_t v = static_cast<rlim_t>(value);
  rlim_t hard = static_cast<rlim_t>(value + hard_extra);
  // Only ever lower: an unprivileged hard limit cannot be raised anyway.
  if (rl.rlim_max != RLIM_INFINITY && hard > rl.rlim_max)
    hard = rl.rlim_max;
  if (v > hard)
    v = hard;
  rl.rlim_cur = v;
  rl.rlim_max = hard;
  ::setrlimit(resource, &rl);
}

} // namespace

uint64_t nproc_limit_for(uint64_t more) {
  // /proc/loadavg: "0.1 0.2 0.3 running/total last_pid".
  std::ifstream in{"/proc/loadavg"};
  std::string a, b, c, tasks;
  uint64_t total = 4096;
  if (in >> a >> b >> c >> tasks) {
    auto slash = tasks.find('/');
    if (slash != std::string::npos) {
      try {
        total = std::stoull(tasks.substr(slash + 1));
      } catch (...) {
      }
    }
  }
  return total + more;
}

pid_t spawn_child(const child_spec& s, std::string& error) {
  // Everything the child needs is built before fork: no allocation after.
  std::vector<char*> argv;
  for (auto& a : s.argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : s.env)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  uint64_t nproc = s.limits.processes ? nproc_limit_for(s.limits.processes)
                                      : 0;
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    return -1;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    error = std::strerror(errno);
    ::close(report[0]);
    ::close(report[1]);
    return -1;
  }
  if (pid == 0) {
    if (s.new_group)
      ::setpgid(0, 0);
    // Signals the gateway ignores or blocks are restored for the child.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP)
        ::signal(sig, SIG_DFL);
    int fds[3] = {s.stdin_fd, s.stdout_fd, s.stderr_fd};
    int null_fd = ::open("/dev/null", O_RDWR);
    // Move the sources above 2 first so dup2 never clobbers one of them.
    for (int k = 0; k < 3; ++k) {
      int src = fds[k] < 0 ? null_fd : fds[k];
      if (src >= 0 && src <= 2) {
        src = ::fcntl(src, F_DUPFD_CLOEXEC, 3);
        if (fds[k] < 0)
          null_fd = src;
        else
          fds[k] = src;
      }
    }
    for (int k = 0; k < 3; ++k) {
      int src = fds[k] < 0 ? null_fd : fds[k];
      if (src < 0 || ::dup2(src, k) < 0)
        child_fail(report[1], errno ? errno : EBADF);
    }
    // Extra descriptors go to 3, 4, ...: first lifted above every target
    // (and above the report pipe) so no dup2 overwrites a later source.
    int report_fd = report[1];
    int extra = static_cast<int>(s.extra_fds.size());
    if (extra > 0) {
      int floor = 3 + extra;
      if (report_fd < floor)
        report_fd = ::fcntl(report_fd, F_DUPFD_CLOEXEC, floor);
      if (report_fd < 0)
        child_fail(report[1], errno);
      int lifted[16];
      for (int k = 0; k < extra && k < 16; ++k) {
        lifted[k] = ::fcntl(s.extra_fds[k], F_DUPFD_CLOEXEC,
                            report_fd + 1 + k);
        if (lifted[k] < 0)
          child_fail(report_fd, errno);
      }
      for (int k = 0; k < extra && k < 16; ++k)
        if (::dup2(lifted[k], 3 + k) < 0) // dup2 clears close-on-exec
          child_fail(report_fd, errno);
    }
    if (s.die_with_parent)
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!s.cwd.empty() && ::chdir(s.cwd.c_str()) != 0)
      child_fail(report_fd, errno);
    if (nproc)
      set_limit(RLIMIT_NPROC, nproc);
    if (s.limits.memory_mb)
      set_limit(RLIMIT_DATA, s.limits.memory_mb * 1024 * 1024);
    if (s.limits.cpu_s)
      set_limit(RLIMIT_CPU, s.limits.cpu_s, 2); // SIGXCPU, then SIGKILL
    if (s.limits.no_core)
      set_limit(RLIMIT_CORE, 0);
    // Everything above the extras goes now except the report pipe, which is close-on-exec
    // and still needed if execve fails.
    auto keep = static_cast<unsigned>(report_fd);
    auto first = static_cast<unsigned>(3 + extra);
    if (keep > first)
      ::close_range(first, keep - 1, 0);
    ::close_range(keep + 1, ~0U, 0);
    ::execve(s.program.c_str(), argv.data(), envp.data());
    child_fail(report_fd, errno);
  }
  ::close(report[1]);
  int err = 0;
  ssize_t n;
  while ((n = ::read(report[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    // The child never ran the program: reap it here.
    int status;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    error = std::strerror(err);
    return -1;
  }
  return pid;
}

} // namespace nb

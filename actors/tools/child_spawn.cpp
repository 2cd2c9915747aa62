#include "actors/tools/child_spawn.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nb {

namespace {

constexpr size_t max_extra_fds = 8;

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

// Moves `fds` to 3, 4, ... without clobbering one another or `report`
// (which is moved out of the way first when it sits in that range).
bool place_extra_fds(const std::vector<int>& fds, int& report) {
  int top = 3 + static_cast<int>(fds.size());
  if (report < top) {
    int moved = ::fcntl(report, F_DUPFD_CLOEXEC, top);
    if (moved < 0)
      return false;
    report = moved;
  }
  // Stage every source above the target range, then dup2 into place
  // (dup2 clears close-on-exec on the new descriptor).
  int staged[max_extra_fds];
  size_t n = fds.size();
  for (size_t k = 0; k < n; ++k) {
    staged[k] = ::fcntl(fds[k], F_DUPFD_CLOEXEC, top);
    if (staged[k] < 0)
      return false;
  }
  for (size_t k = 0; k < n; ++k)
    if (::dup2(staged[k], 3 + static_cast<int>(k)) < 0)
      return false;
  return true;
}

/// What the child needs, all of it built before the clone: the child
/// shares the parent's memory until it execs and must not allocate.
struct child_args {
  const child_spec* spec;
  char* const* argv;
  char* const* envp;
  uint64_t nproc;
  int report_fd; ///< write end; close-on-exec
};

/// The child's side, on a stack of its own, in the gateway's memory (the
/// calling thread waits until the execve or _exit): system calls and
/// locals only.
int child_main(void* arg) {
  auto& a = *static_cast<child_args*>(arg);
  const auto& s = *a.spec;
  // Handlers first, while every signal is still blocked (a handler of the
  // gateway's run here would write to the gateway's memory), then the mask
  // the child starts with: empty, whatever the gateway ignores or blocks.
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP)
      ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (s.new_group)
    ::setpgid(0, 0);
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
      child_fail(a.report_fd, errno ? errno : EBADF);
  }
  if (s.die_with_parent)
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (!s.cwd.empty() && ::chdir(s.cwd.c_str()) != 0)
    child_fail(a.report_fd, errno);
  if (s.cgroup_procs_fd >= 0 && ::write(s.cgroup_procs_fd, "0", 1) != 1)
    child_fail(a.report_fd, errno);
  if (a.nproc)
    set_limit(RLIMIT_NPROC, a.nproc);
  if (s.limits.memory_mb)
    set_limit(RLIMIT_DATA, s.limits.memory_mb * 1024 * 1024);
  if (s.limits.cpu_s)
    set_limit(RLIMIT_CPU, s.limits.cpu_s, 2); // SIGXCPU, then SIGKILL
  if (s.limits.no_core)
    set_limit(RLIMIT_CORE, 0);
  int report_fd = a.report_fd;
  if (!s.extra_fds.empty() && !place_extra_fds(s.extra_fds, report_fd))
    child_fail(report_fd, errno);
  // Everything above the extras goes now except the report pipe,
  // which is close-on-exec and still needed if execve fails.
  auto first = 3u + static_cast<unsigned>(s.extra_fds.size());
  auto keep = static_cast<unsigned>(report_fd);
  if (keep > first)
    ::close_range(first, keep - 1, 0);
  ::close_range(keep + 1, ~0U, 0);
  ::execve(s.program.c_str(), a.argv, a.envp);
  child_fail(report_fd, errno);
}

/// Every signal blocked in the calling thread, by the system call itself
/// (glibc's sigprocmask leaves its own two internal signals open).
void block_all_signals(sigset_t& old) {
  sigset_t all;
  sigfillset(&all);
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old,
            static_cast<long>(_NSIG / 8));
}

void restore_signals(const sigset_t& old) {
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, nullptr,
            static_cast<long>(_NSIG / 8));
}

} // namespace

void reap_in_background(pid_t pid) {
  auto wait = [pid] {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  };
  try {
    std::thread{wait}.detach();
  } catch (const std::system_error&) {
    wait(); // no thread to be had: wait here rather than leave a zombie
  }
}

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
  std::vector<char*> argv;
  for (auto& a : s.argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : s.env)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  if (s.extra_fds.size() > max_extra_fds) {
    error = "too many descriptors to pass on";
    return -1;
  }
  uint64_t nproc = s.limits.processes ? nproc_limit_for(s.limits.processes)
                                      : 0;
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    return -1;
  }
  // The child runs in the gateway's memory until it execs (CLONE_VM, as
  // glibc's posix_spawn does), and the calling thread waits that long
  // (CLONE_VFORK): no copy of the page tables, which fork made for every
  // child (in a warm exec turn, the copy and the copy-on-write faults it
  // caused in the gateway were ~6 ms of CPU beside the turn, perf).
  constexpr size_t stack_size = 256 * 1024;
  void* stack = ::mmap(nullptr, stack_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    error = std::strerror(errno);
    ::close(report[0]);
    ::close(report[1]);
    return -1;
  }
  child_args args{&s, argv.data(), envp.data(), nproc, report[1]};
  sigset_t old;
  block_all_signals(old);
  int saved_errno = errno;
  pid_t pid = ::clone(child_main, static_cast<char*>(stack) + stack_size,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  int clone_errno = errno;
  errno = saved_errno; // the child's calls wrote this thread's errno too
  restore_signals(old);
  ::munmap(stack, stack_size);
  if (pid < 0) {
    error = std::strerror(clone_errno);
    ::close(report[0]);
    ::close(report[1]);
    return -1;
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

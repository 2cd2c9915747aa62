#include "actors/tools/exec_process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nb {

namespace {

using steady = std::chrono::steady_clock;

void keep(captured_stream& s, const char* data, size_t n, size_t limit) {
  s.total += n;
  if (s.head.size() < limit) {
    auto take = std::min(n, limit - s.head.size());
    s.head.append(data, take);
    data += take;
    n -= take;
  }
  if (n == 0)
    return;
  s.tail.append(data, n);
  // Trim in batches so a flood costs amortised O(1) per byte.
  if (s.tail.size() > 2 * limit + 65536)
    s.tail.erase(0, s.tail.size() - limit);
}

void finish(captured_stream& s, size_t limit) {
  if (s.tail.size() > limit)
    s.tail.erase(0, s.tail.size() - limit);
}

int decode_status(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return -WTERMSIG(status);
  return -1;
}

void reap(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// Everything posix_spawn needs, released on every path out.
struct spawn_setup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  spawn_setup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~spawn_setup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

} // namespace

process_result run_process(const process_options& o) {
  process_result r;
  int out_pipe[2];
  int err_pipe[2];
  // O_CLOEXEC: children other threads spawn meanwhile must not inherit the
  // write ends, or our reads would never see EOF.
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.error = std::strerror(errno);
    return r;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.error = std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return r;
  }
  pid_t pid = -1;
  int rc = 0;
  {
    spawn_setup s;
    posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&s.actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&s.actions, err_pipe[1], 2);
    posix_spawn_file_actions_addchdir_np(&s.actions, o.cwd.c_str());
    posix_spawn_file_actions_addclosefrom_np(&s.actions, 3);
    // A new process group (pgid = child pid) so a timeout kills it all;
    // signals the gateway ignores or blocks are restored for the child.
    sigset_t none;
    sigemptyset(&none);
    sigset_t deflt;
    sigemptyset(&deflt);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD,
                    SIGUSR1, SIGUSR2, SIGALRM})
      sigaddset(&deflt, sig);
    posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETPGROUP
                                        | POSIX_SPAWN_SETSIGMASK
                                        | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&s.attr, 0);
    posix_spawnattr_setsigmask(&s.attr, &none);
    posix_spawnattr_setsigdefault(&s.attr, &deflt);
    std::vector<char*> argv;
    for (auto& a : o.argv)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : o.env)
      envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    rc = ::posix_spawn(&pid, o.program.c_str(), &s.actions, &s.attr,
                       argv.data(), envp.data());
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    r.error = std::strerror(rc);
    return r;
  }
  int fds[2] = {out_pipe[0], err_pipe[0]};
  captured_stream* sinks[2] = {&r.out, &r.err};
  for (int fd : fds)
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  auto deadline = o.timeout_s > 0
                    ? steady::now() + std::chrono::seconds(o.timeout_s)
                    : steady::time_point::max();
  bool exited = false;
  bool held_open = false;
  int status = 0;
  steady::time_point drain_until;
  std::vector<char> buf(65536);
  while (true) {
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      drain_until = steady::now() + o.drain;
    }
    bool pipes_open = fds[0] >= 0 || fds[1] >= 0;
    auto now = steady::now();
    if (exited && (!pipes_open || now >= drain_until)) {
      held_open = pipes_open;
      break;
    }
    if (!exited && now >= deadline) {
      r.timed_out = true;
      break;
    }
    auto until = exited ? drain_until : deadline;
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - now);
    int wait_ms = static_cast<int>(
      std::clamp<int64_t>(wait.count(), 0, 50)); // re-check exit often
    pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
    if (::poll(p, 2, wait_ms) <= 0)
      continue;
    for (int k = 0; k < 2; ++k) {
      if (fds[k] < 0 || !(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      // A bounded number of reads per round keeps the clock checks going
      // while a child floods its output.
      for (int round = 0; round < 16; ++round) {
        auto n = ::read(fds[k], buf.data(), buf.size());
        if (n > 0) {
          keep(*sinks[k], buf.data(), static_cast<size_t>(n),
               o.capture_limit);
          continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          ::close(fds[k]);
          fds[k] = -1;
        }
        break;
      }
    }
  }
  if (r.timed_out || held_open) {
    // The group id is the child's pid; leftovers that still hold our pipes
    // after the drain go with it.
    ::killpg(pid, SIGKILL);
    if (!exited)
      ::kill(pid, SIGKILL);
  }
  if (!exited)
    reap(pid, status);
  for (int fd : fds)
    if (fd >= 0)
      ::close(fd);
  finish(r.out, o.capture_limit);
  finish(r.err, o.capture_limit);
  r.exit_code = decode_status(status);
  return r;
}

} // namespace nb

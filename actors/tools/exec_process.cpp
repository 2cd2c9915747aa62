#include "actors/tools/exec_process.hpp"

#include "actors/tools/child_spawn.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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

void reap(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

} // namespace

started_process start_process(const process_options& o, bool with_stdin) {
  started_process sp;
  int out_pipe[2];
  int err_pipe[2];
  int in_pair[2] = {-1, -1};
  // O_CLOEXEC: children other threads spawn meanwhile must not inherit the
  // write ends, or our reads would never see EOF.
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    sp.error = std::strerror(errno);
    return sp;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    sp.error = std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return sp;
  }
  // stdin as a socket: a write to a child that closed it fails with EPIPE
  // (MSG_NOSIGNAL) instead of raising SIGPIPE in the gateway.
  if (with_stdin
      && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0) {
    sp.error = std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
      ::close(fd);
    return sp;
  }
  child_spec spec;
  spec.program = o.program;
  spec.argv = o.argv;
  spec.env = o.env;
  spec.cwd = o.cwd;
  spec.stdin_fd = in_pair[1];
  spec.stdout_fd = out_pipe[1];
  spec.stderr_fd = err_pipe[1];
  spec.limits = o.limits;
  spec.cgroup_procs_fd = o.cgroup_procs_fd;
  spec.extra_fds = o.inherit_fds;
  pid_t pid = spawn_child(spec, sp.error);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (in_pair[1] >= 0)
    ::close(in_pair[1]);
  auto close_ours = [&] {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (in_pair[0] >= 0)
      ::close(in_pair[0]);
  };
  if (pid < 0) {
    close_ours();
    return sp;
  }
  if (o.started) {
    sp.error = o.started(pid);
    if (!sp.error.empty()) {
      ::killpg(pid, SIGKILL);
      ::kill(pid, SIGKILL);
      int status;
      reap(pid, status);
      // What the child said before it went (bwrap names its own failures).
      char said[2048];
      pollfd p{err_pipe[0], POLLIN, 0};
      if (::poll(&p, 1, 200) > 0) {
        auto n = ::read(err_pipe[0], said, sizeof said);
        if (n > 0)
          sp.error += " (" + std::string(said, static_cast<size_t>(n)) + ")";
      }
      close_ours();
      return sp;
    }
  }
  for (int fd : {out_pipe[0], err_pipe[0]})
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  sp.pid = pid;
  sp.stdin_fd = in_pair[0];
  sp.out_fd = out_pipe[0];
  sp.err_fd = err_pipe[0];
  return sp;
}

int decode_exit_status(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return -WTERMSIG(status);
  return -1;
}

process_result run_process(const process_options& o) {
  auto sp = start_process(o, false);
  if (sp.pid < 0) {
    process_result r;
    r.error = std::move(sp.error);
    return r;
  }
  return wait_process(sp, o);
}

process_result wait_process(const started_process& sp,
                            const process_options& o) {
  process_result r;
  pid_t pid = sp.pid;
  // The child's exit wakes the loop itself (a pidfd, Linux 5.3+): its pipes
  // may close before it is reapable, or stay open in a grandchild, and the
  // loop then slept out its 50 ms re-check, which was most of an `exec
  // true` (53 ms measured, 3 ms for bash -c true itself). Without a pidfd
  // (older kernels) the 50 ms re-check remains.
  int exit_fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  int fds[2] = {sp.out_fd, sp.err_fd};
  captured_stream* sinks[2] = {&r.out, &r.err};
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
    if (!exited && o.cancelled && o.cancelled()) {
      r.cancelled = true;
      break;
    }
    auto until = exited ? drain_until : deadline;
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - now);
    int wait_ms = static_cast<int>(
      std::clamp<int64_t>(wait.count(), 0, 50)); // re-check exit often
    pollfd p[3] = {{fds[0], POLLIN, 0},
                   {fds[1], POLLIN, 0},
                   {exited ? -1 : exit_fd, POLLIN, 0}};
    if (::poll(p, 3, wait_ms) <= 0)
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
  if (r.timed_out || r.cancelled || held_open) {
    // The group id is the child's pid; leftovers that still hold our pipes
    // after the drain go with it.
    ::killpg(pid, SIGKILL);
    if (!exited)
      ::kill(pid, SIGKILL);
  }
  if (!exited)
    reap(pid, status);
  for (int fd : {fds[0], fds[1], exit_fd})
    if (fd >= 0)
      ::close(fd);
  finish(r.out, o.capture_limit);
  finish(r.err, o.capture_limit);
  r.exit_code = decode_exit_status(status);
  return r;
}

} // namespace nb

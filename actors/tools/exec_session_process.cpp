#include "actors/tools/exec_session_process.hpp"

#include <cerrno>
#include <csignal>
#include <vector>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/sandbox/pids_cgroup.hpp"
#include "actors/tools/sandbox/slirp_net.hpp"

namespace nb {

namespace {

// Per read_output call and stream: enough to keep up with a chatty command
// at a tick every 20-100 ms, bounded so one session cannot hold the
// manager's thread.
constexpr int session_read_rounds = 16;
constexpr size_t session_read_size = 65536;

} // namespace

std::unique_ptr<session_process>
session_process::start(const exec_launch& launch, std::string& error) {
  std::unique_ptr<session_process> p{new session_process};
  auto opts = process_options_for(launch);
  if (launch.sandboxed) {
    p->sandbox_ = prepare_sandboxed(
      std::move(opts), sandbox_request_for(launch), sandbox_status_for());
    opts = p->sandbox_.opts;
  }
  auto sp = start_process(opts, true);
  if (sp.pid < 0) {
    error = sp.error;
    return nullptr;
  }
  p->pid_ = sp.pid;
  p->in_fd_ = sp.stdin_fd;
  p->out_fd_ = sp.out_fd;
  p->err_fd_ = sp.err_fd;
  return p;
}

session_process::~session_process() {
  if (!reaped_ && pid_ > 0)
    kill();
  release();
  close_stdin_now();
}

size_t session_process::read_output(
  const std::function<void(int, std::string_view)>& sink) {
  static thread_local std::vector<char> buf(session_read_size);
  size_t total = 0;
  int* fds[2] = {&out_fd_, &err_fd_};
  for (int k = 0; k < 2; ++k) {
    for (int round = 0; *fds[k] >= 0 && round < session_read_rounds; ++round) {
      auto n = ::read(*fds[k], buf.data(), buf.size());
      if (n > 0) {
        total += static_cast<size_t>(n);
        sink(k, std::string_view{buf.data(), static_cast<size_t>(n)});
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        break;
      ::close(*fds[k]);
      *fds[k] = -1;
    }
  }
  return total;
}

bool session_process::check_exit() {
  if (reaped_ || pid_ <= 0)
    return true;
  int status = 0;
  auto r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    exit_code_ = decode_exit_status(status);
  } else if (r < 0 && errno == ECHILD) {
    // Reaped elsewhere (should not happen): treat it as gone.
    reaped_ = true;
    exit_code_ = -1;
  }
  return reaped_;
}

std::string session_process::write_input(std::string_view chars) {
  if (in_fd_ < 0 || close_after_input_)
    return "session stdin is closed";
  pending_input_.append(chars);
  flush_input();
  return in_fd_ < 0 ? "session stdin is closed" : "";
}

void session_process::flush_input() {
  while (in_fd_ >= 0 && !pending_input_.empty()) {
    auto n = ::send(in_fd_, pending_input_.data(), pending_input_.size(),
                    MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      pending_input_.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      return; // the command reads slower than we write: next tick
    // EPIPE: the command closed its stdin or ended.
    pending_input_.clear();
    close_stdin_now();
  }
  if (close_after_input_ && pending_input_.empty())
    close_stdin_now();
}

void session_process::close_input() {
  close_after_input_ = true;
  flush_input();
}

void session_process::close_stdin_now() {
  if (in_fd_ >= 0) {
    ::close(in_fd_);
    in_fd_ = -1;
  }
}

void session_process::kill() {
  // Never signal pid -1 or 0 (every process we may signal, or our own
  // group): a process that did not start has nothing to kill.
  if (pid_ <= 0)
    return;
  if (!reaped_) {
    // The group id is the child's pid (its own group): the shell and
    // everything it started.
    ::killpg(pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    exit_code_ = decode_exit_status(status);
  }
  if (sandbox_.cgroup)
    sandbox_.cgroup->kill_all();
}

void session_process::release() {
  if (released_)
    return;
  released_ = true;
  if (pid_ > 0)
    ::killpg(pid_, SIGKILL);
  if (sandbox_.cgroup)
    sandbox_.cgroup->kill_all();
  for (int* fd : {&out_fd_, &err_fd_})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

} // namespace nb

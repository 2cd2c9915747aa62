#include "tests/cli/pty_session.hpp"

#include <csignal>
#include <cstdlib>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nb::test {

pty_session::pty_session(const std::vector<std::string>& argv,
                         const std::string& dir,
                         const std::vector<std::string>& env_extra,
                         unsigned short cols) {
  winsize ws{};
  ws.ws_row = 50;
  ws.ws_col = cols;
  pid_ = ::forkpty(&master_, nullptr, nullptr, &ws);
  if (pid_ == 0) {
    if (::chdir(dir.c_str()) != 0)
      ::_exit(126);
    ::setenv("TERM", "xterm", 1);
    ::unsetenv("COLUMNS");
    for (const auto& kv : env_extra)
      ::putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  if (master_ >= 0)
    ::fcntl(master_, F_SETFL, ::fcntl(master_, F_GETFL) | O_NONBLOCK);
}

pty_session::~pty_session() {
  if (pid_ > 0 && status_ < 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (master_ >= 0)
    ::close(master_);
}

void pty_session::type(const std::string& keys) {
  size_t done = 0;
  while (done < keys.size()) {
    auto n = ::write(master_, keys.data() + done, keys.size() - done);
    if (n > 0)
      done += static_cast<size_t>(n);
    else if (errno != EAGAIN && errno != EINTR)
      return;
  }
}

bool pty_session::pump(int ms) {
  pollfd p{master_, POLLIN, 0};
  if (::poll(&p, 1, ms) <= 0)
    return true;
  char buf[4096];
  while (true) {
    auto n = ::read(master_, buf, sizeof buf);
    if (n > 0) {
      screen_.append(buf, static_cast<size_t>(n));
      continue;
    }
    // EIO: the program closed the terminal (it ended).
    return n < 0 && (errno == EAGAIN || errno == EINTR);
  }
}

size_t pty_session::wait_for(const std::string& text, size_t from,
                             std::chrono::seconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (true) {
    auto at = screen_.find(text, std::min(from, screen_.size()));
    if (at != std::string::npos)
      return at;
    if (std::chrono::steady_clock::now() >= until || !pump(100))
      return screen_.find(text, std::min(from, screen_.size()));
  }
}

int pty_session::wait_exit(std::chrono::seconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (status_ < 0) {
    pump(100);
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_)
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    else if (std::chrono::steady_clock::now() >= until)
      return -1;
  }
  return status_;
}

} // namespace nb::test

#include "tests/integration/child_process.hpp"

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nb_test_paths.hpp" // NB_BINARY_DIR

extern char** environ;

namespace nb::test {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in{path};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

std::string nanobot_binary() {
  return std::string{NB_BINARY_DIR} + "/actors/app/nanobot";
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

child_process::child_process(const std::vector<std::string>& argv,
                             const std::string& dir,
                             const std::vector<std::string>& env_extra,
                             const std::string& stdin_text) {
  static int counter = 0;
  auto tag = std::to_string(::getpid()) + "-" + std::to_string(++counter);
  out_path_ = dir + "/child-" + tag + ".out";
  err_path_ = dir + "/child-" + tag + ".err";
  auto in_path = dir + "/child-" + tag + ".in";
  std::ofstream{in_path} << stdin_text;
  // Extra entries replace inherited ones of the same name.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry{*e};
    auto name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (auto& x : env_extra)
      replaced = replaced || x.rfind(name, 0) == 0;
    if (!replaced)
      env.push_back(std::move(entry));
  }
  env.insert(env.end(), env_extra.begin(), env_extra.end());
  pid_ = ::fork();
  if (pid_ == 0) {
    int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = ::open(in_path.c_str(), O_RDONLY);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    // Start from default signal handling whatever the test runner had.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    std::vector<char*> args;
    for (auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env)
      envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
}

child_process::~child_process() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

int child_process::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reaped_) {
    int st = 0;
    auto r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline)
      return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status_;
}

void child_process::signal(int sig) {
  if (!reaped_)
    ::kill(pid_, sig);
}

std::string child_process::out() const { return slurp(out_path_); }
std::string child_process::err() const { return slurp(err_path_); }

bool child_process::wait_for_log(const std::string& needle,
                                 std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (err().find(needle) != std::string::npos)
      return true;
    int st = 0;
    if (!reaped_ && ::waitpid(pid_, &st, WNOHANG) == pid_) {
      reaped_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      return err().find(needle) != std::string::npos;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

run_result run(const std::vector<std::string>& argv, const std::string& dir,
               std::chrono::milliseconds timeout) {
  child_process p{argv, dir};
  int code = p.wait(timeout);
  return {code, p.out(), p.err()};
}

} // namespace nb::test

// Runs the real nanobot executable as a child process for a test.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace nb::test {

/// The nanobot binary built next to the tests.
std::string nanobot_binary();

/// A free TCP port on 127.0.0.1 (bound, read, closed: good enough for tests).
int free_port();

class child_process {
public:
  /// Starts `argv` with `env_extra` ("K=V") added to the environment;
  /// stdout and stderr go to files in `dir`.
  /// `stdin_text` is what the child reads on standard input (then EOF).
  child_process(const std::vector<std::string>& argv, const std::string& dir,
                const std::vector<std::string>& env_extra = {},
                const std::string& stdin_text = "");
  ~child_process();

  pid_t pid() const { return pid_; }
  /// Waits for the exit; returns the exit code, 128+signal, or -1 on timeout.
  int wait(std::chrono::milliseconds timeout);
  void signal(int sig);
  std::string out() const;
  std::string err() const;
  /// Waits until stderr contains `needle`; false on timeout or exit.
  bool wait_for_log(const std::string& needle, std::chrono::milliseconds timeout);

private:
  pid_t pid_ = -1;
  int status_ = -1;
  bool reaped_ = false;
  std::string out_path_;
  std::string err_path_;
};

/// Runs a command to completion and returns {exit code, stdout, stderr}.
struct run_result {
  int code;
  std::string out;
  std::string err;
};
run_result run(const std::vector<std::string>& argv, const std::string& dir,
               std::chrono::milliseconds timeout = std::chrono::seconds(60));

} // namespace nb::test

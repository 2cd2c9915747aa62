// The real nanobot executable on a pseudo-terminal: the test types into it
// and reads the screen (the raw bytes the program wrote, escapes included).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace nb::test {

class pty_session {
public:
  /// Starts `argv` in `dir` on a new terminal of `cols` columns, with
  /// `env_extra` ("K=V") added to the environment.
  pty_session(const std::vector<std::string>& argv, const std::string& dir,
              const std::vector<std::string>& env_extra = {},
              unsigned short cols = 80);
  ~pty_session();
  pty_session(const pty_session&) = delete;
  pty_session& operator=(const pty_session&) = delete;

  /// Writes `keys` as if typed ("\r" is Enter, "\x03" Ctrl+C, "\x04"
  /// Ctrl+D, "\x1b[A" the up arrow).
  void type(const std::string& keys);
  /// Reads until the screen after `from` contains `text`; its offset, or
  /// npos when the deadline passed or the program ended first.
  size_t wait_for(const std::string& text, size_t from = 0,
                  std::chrono::seconds deadline = std::chrono::seconds(60));
  /// Everything written so far.
  const std::string& screen() const { return screen_; }
  /// Waits for the exit (reading the rest); the exit code, 128+signal, or
  /// -1 on timeout.
  int wait_exit(std::chrono::seconds deadline = std::chrono::seconds(60));

private:
  /// Reads what is there within `ms`; false once the terminal closed.
  bool pump(int ms);

  pid_t pid_ = -1;
  int master_ = -1;
  int status_ = -1;
  std::string screen_;
};

} // namespace nb::test

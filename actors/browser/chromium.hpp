// Browser: the Chromium process. Started headless in its own process group
// with the DevTools protocol on a pipe (fd 3 in, fd 4 out: no port at all),
// a fresh profile directory, and the flags that keep it from calling home;
// stopped by killing the whole group.
#pragma once

#include <cstdint>
#include <string>

#include <sys/types.h>

#include "config/settings.hpp"

namespace nb {

/// Returns the absolute path of `name` (a path, or a name looked up on
/// PATH), or "" when no executable file is there.
std::string find_executable(const std::string& name);

/// Whether the browser tool is on under `cfg`: tools.browser.enable, or,
/// when unset, whether the executable is found.
bool browser_enabled(const browser_settings& cfg);

/// The proportional set size (resident memory, shared pages divided among
/// the processes sharing them) of every process in group `pgid`: Chromium's
/// real footprint, where summing each process's RSS would count its shared
/// pages many times. Reads /proc (blocking).
int64_t process_group_pss_bytes(pid_t pgid);

/// One running Chromium. Not copyable; stop() (or the destructor) kills the
/// group, reaps the child and removes the profile.
class chromium_process {
public:
  chromium_process() = default;
  ~chromium_process();
  chromium_process(const chromium_process&) = delete;
  chromium_process& operator=(const chromium_process&) = delete;

  /// Starts Chromium under `cfg`; returns "" or an error naming the problem.
  std::string start(const browser_settings& cfg);

  /// Kills the process group and reaps the child; removes the profile.
  void stop();

  /// Whether the child still runs (reaps it when it has exited).
  bool alive();

  /// How it ended ("exited with status 1", "killed by signal 9"), or "".
  const std::string& exit_reason() const {
    return exit_reason_;
  }

  pid_t pid() const {
    return pid_;
  }
  int write_fd() const {
    return to_browser_;
  }
  int read_fd() const {
    return from_browser_;
  }

  /// Memory of every process in the group (bytes; 0 if stopped).
  int64_t group_rss_bytes() const {
    return pid_ > 0 ? process_group_pss_bytes(pid_) : 0;
  }

private:
  pid_t pid_ = -1;
  pid_t group_ = -1; ///< a group killed but maybe not gone yet
  int to_browser_ = -1;
  int from_browser_ = -1;
  std::string profile_;
  std::string exit_reason_;
};

} // namespace nb

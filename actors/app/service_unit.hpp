// The systemd unit `nanobot gateway install-service` writes, as the
// original renders it (nanobot/gateway/service.py): a simple service
// running `nanobot gateway --foreground --port N [...]`, restarted always
// after 10 s. A user unit by default (~/.config/systemd/user), a system unit
// with --system (/etc/systemd/system, run as the invoking user).
//
// For tests: NANOBOT_SYSTEMD_UNIT_DIR replaces the unit folder and
// NANOBOT_SYSTEMCTL names the program run instead of systemctl.
#pragma once

#include <string>
#include <vector>

namespace nb {

struct unit_request {
  std::string name = "nanobot-gateway";
  bool system = false;
  std::vector<std::string> command; ///< ExecStart, already absolute
  std::string working_directory;
  std::string user; ///< system units: User=
  std::string home; ///< system units: Environment=HOME=
};

/// "<safe name>.service" (lower case, [a-z0-9_.-], as the original).
std::string unit_file_name(const std::string& name);

/// The unit file's text.
std::string unit_content(const unit_request& rq);

/// Where the unit goes.
std::string unit_directory(bool system);

/// The systemctl program and its scope flag ("--user" or "").
struct systemctl_access {
  std::string program; ///< "" when systemd cannot be used
  std::string problem; ///< why not, for the user
  bool system = false;
  std::vector<std::string> command(std::vector<std::string> args) const;
};

/// Whether systemctl can manage units here (without running it: the
/// program must exist and systemd must be the init system).
systemctl_access find_systemctl(bool system);

/// Runs `argv` and waits; its exit code (127 when it could not start).
int run_program(const std::vector<std::string>& argv);

} // namespace nb

// `nanobot gateway install-service|uninstall-service`: a systemd unit for
// the gateway; where systemd cannot be used, the pid-file way instead.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <pwd.h>
#include <unistd.h>

#include "actors/app/gateway_control.hpp"
#include "actors/app/service_unit.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace fs = std::filesystem;

namespace {

void print_commands(const std::vector<std::vector<std::string>>& cmds) {
  if (cmds.empty())
    return;
  std::cout << "Commands:\n";
  for (auto& c : cmds) {
    std::cout << " ";
    for (auto& w : c)
      std::cout << " " << w;
    std::cout << "\n";
  }
}

/// The user a system unit runs as: whoever ran sudo, else this user.
std::string unit_user(std::string& home) {
  const char* sudo_user = std::getenv("SUDO_USER");
  struct passwd* pw =
    sudo_user && *sudo_user ? ::getpwnam(sudo_user) : ::getpwuid(::getuid());
  if (!pw)
    return "";
  home = pw->pw_dir ? pw->pw_dir : "";
  return pw->pw_name ? pw->pw_name : "";
}

} // namespace

int gateway_install_service(const options& opts, const settings& cfg) {
  auto inst = gateway_instance_for(opts);
  unit_request rq;
  rq.name = opts.service_name;
  rq.system = opts.system_unit;
  rq.command = {self_executable(), "gateway", "--foreground", "--port",
                std::to_string(opts.port.value_or(cfg.gateway.port))};
  if (opts.verbose)
    rq.command.push_back("--verbose");
  if (!inst.workspace.empty()) {
    rq.command.push_back("--workspace");
    rq.command.push_back(inst.workspace);
  }
  // A system unit runs with another environment: name the config always.
  if (!inst.default_config || rq.system) {
    rq.command.push_back("--config");
    rq.command.push_back(inst.config_path);
  }
  std::string user_home;
  if (rq.system)
    rq.user = unit_user(user_home);
  rq.home = user_home;
  const char* home = std::getenv("HOME");
  rq.working_directory = !inst.workspace.empty() ? inst.workspace
                         : rq.system && !user_home.empty()
                           ? user_home
                           : std::string{home ? home : "/"};
  auto unit = unit_file_name(rq.name);
  auto path = unit_directory(rq.system) + "/" + unit;
  auto content = unit_content(rq);
  auto sc = find_systemctl(rq.system);
  std::vector<std::vector<std::string>> cmds;
  auto program = sc.program.empty() ? std::string{"systemctl"} : sc.program;
  systemctl_access shown = sc;
  shown.program = program;
  cmds.push_back(shown.command({"daemon-reload"}));
  cmds.push_back(shown.command({"enable", unit}));
  if (opts.start_service)
    cmds.push_back(shown.command({"restart", unit}));
  if (opts.dry_run) {
    std::cout << "Gateway service dry run.\nManager: systemd\nPath: " << path
              << "\n";
    print_commands(cmds);
    std::cout << "\n" << content;
    return 0;
  }
  if (sc.program.empty()) {
    std::cout << "systemd cannot be used here: " << sc.problem
              << ". No unit was installed.\n";
    if (!opts.start_service) {
      std::cout << "Start the gateway with `nanobot gateway --background` "
                   "(a pid file and a log under "
                << fs::path{inst.config_path}.parent_path().string() << ").\n";
      return 1;
    }
    std::cout << "Starting it the pid-file way instead (nanobot gateway "
                 "--background); it does not come back after a reboot.\n"
              << std::flush;
    return gateway_start_background(opts, cfg);
  }
  std::error_code ec;
  fs::create_directories(unit_directory(rq.system), ec);
  fs::create_directories(rq.working_directory, ec);
  auto w = replace_file_atomic(path, content, 0644, existing_mode::replace);
  if (w.outcome == write_outcome::failed) {
    std::cerr << "Service install failed: " << w.error
              << (rq.system ? " (a system unit needs root: sudo)" : "") << "\n";
    return 1;
  }
  for (auto& c : cmds)
    if (int rc = run_program(c); rc != 0) {
      std::cerr << "Service install failed while running:";
      for (auto& word : c)
        std::cerr << " " << word;
      std::cerr << " (exit code " << rc << ")\n";
      return 1;
    }
  std::cout << "Gateway service installed.\nManager: systemd\nPath: " << path
            << "\n";
  print_commands(cmds);
  return 0;
}

int gateway_uninstall_service(const options& opts, const settings& cfg) {
  (void)cfg;
  auto unit = unit_file_name(opts.service_name);
  auto path = unit_directory(opts.system_unit) + "/" + unit;
  auto sc = find_systemctl(opts.system_unit);
  std::error_code ec;
  bool present = fs::exists(path, ec);
  if (opts.dry_run) {
    std::cout << "Gateway service uninstall dry run.\nManager: systemd\n"
              << "Path: " << path << (present ? "" : " (not there)") << "\n";
    systemctl_access shown = sc;
    if (shown.program.empty())
      shown.program = "systemctl";
    print_commands({shown.command({"disable", "--now", unit}),
                    shown.command({"daemon-reload"})});
    return 0;
  }
  std::vector<std::vector<std::string>> ran;
  if (!sc.program.empty()) {
    // Best effort: the unit may be stopped or never enabled.
    ran.push_back(sc.command({"disable", "--now", unit}));
    run_program(ran.back());
  }
  if (present && !fs::remove(path, ec)) {
    std::cerr << "Service uninstall failed: cannot remove " << path << ": "
              << ec.message() << "\n";
    return 1;
  }
  if (!sc.program.empty()) {
    ran.push_back(sc.command({"daemon-reload"}));
    if (int rc = run_program(ran.back()); rc != 0) {
      std::cerr << "Service uninstall: systemctl daemon-reload failed (exit "
                   "code "
                << rc << ")\n";
      return 1;
    }
  }
  std::cout << "Gateway service uninstalled.\nManager: systemd\nPath: " << path
            << (present ? " (removed)" : " (there was none)") << "\n";
  print_commands(ran);
  if (sc.program.empty())
    std::cout << "systemd cannot be used here (" << sc.problem
              << "); a gateway started with --background is stopped with "
                 "`nanobot gateway stop`.\n";
  return 0;
}

} // namespace nb

// The background gateway: start detached, status, logs, stop, restart.
#include <chrono>
#include <cstring>
#include <ctime>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/app/gateway_control.hpp"
#include "actors/common/clock.hpp"

namespace nb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int default_start_wait_s = 30;
constexpr int default_stop_wait_s = 20; // the original's --timeout

/// The command a supervisor runs, as the original builds it
/// (build_gateway_command): foreground, the port, and the selectors.
std::vector<std::string> foreground_command(const options& opts,
                                            const gateway_instance& inst,
                                            int port) {
  std::vector<std::string> cmd{self_executable(), "gateway", "--foreground",
                               "--port", std::to_string(port)};
  if (opts.verbose)
    cmd.push_back("--verbose");
  if (!inst.workspace.empty()) {
    cmd.push_back("--workspace");
    cmd.push_back(inst.workspace);
  }
  if (!inst.default_config) {
    cmd.push_back("--config");
    cmd.push_back(inst.config_path);
  }
  return cmd;
}

/// Forks `cmd` into its own session with stdin from /dev/null and stdout
/// and stderr appended to `log`; returns the pid or -1 with `why`.
int spawn_detached(const std::vector<std::string>& cmd, const std::string& log,
                   std::string& why) {
  std::vector<char*> argv;
  for (auto& a : cmd)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out =
    ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (out < 0) {
    why = "cannot open " + log + ": " + std::strerror(errno);
    return -1;
  }
  int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  auto pid = ::fork();
  if (pid == 0) {
    ::setsid();
    ::dup2(null_in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execv(argv[0], argv.data());
    const char msg[] = "nanobot: cannot run the gateway executable\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(out);
  if (null_in >= 0)
    ::close(null_in);
  if (pid < 0)
    why = std::string{"fork failed: "} + std::strerror(errno);
  return pid;
}

void print_log_end(const std::string& log, size_t lines) {
  auto end = tail_lines(log, lines);
  if (end.empty())
    return;
  std::cerr << "The end of " << log << ":\n";
  for (auto& l : end)
    std::cerr << "  " << l << "\n";
}

/// Sends SIGTERM and waits for the exit; SIGKILL after `wait_s`.
bool terminate_and_wait(int pid, int wait_s) {
  auto gone_within = [pid](std::chrono::milliseconds bound) {
    auto until = std::chrono::steady_clock::now() + bound;
    while (std::chrono::steady_clock::now() < until) {
      // Our own child (restart right after a start) needs reaping.
      ::waitpid(pid, nullptr, WNOHANG);
      if (!process_alive(pid))
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return !process_alive(pid);
  };
  if (::kill(pid, SIGTERM) != 0 && errno == ESRCH)
    return true;
  if (gone_within(std::chrono::seconds(wait_s)))
    return true;
  std::cerr << "The gateway did not exit within " << wait_s
            << " s of SIGTERM; sending SIGKILL.\n";
  ::kill(pid, SIGKILL);
  return gone_within(std::chrono::seconds(2));
}

/// Now in UTC as the original's state file has it
/// ("2026-12-03T07:40:01.123456Z").
std::string gateway_utc_now() {
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
              now.time_since_epoch())
              .count();
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[48];
  auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%06lldZ",
                static_cast<long long>(us % 1'000'000));
  return buf;
}

int health_port(const options& opts, const settings& cfg) {
  return opts.port.value_or(cfg.gateway.port);
}

} // namespace

int gateway_start_background(const options& opts, const settings& cfg) {
  auto inst = gateway_instance_for(opts);
  auto st = gateway_status_of(inst, cfg);
  if (st.running) {
    std::cout << (st.pid > 0
                    ? "Gateway is already running in the background.\n"
                    : "A gateway already answers on its port (started in a "
                      "terminal or by a service manager).\n");
    print_gateway_status(st, inst);
    return st.pid > 0 ? 0 : 1;
  }
  int port = health_port(opts, cfg);
  std::error_code ec;
  fs::create_directories(inst.run_dir, ec);
  fs::create_directories(inst.logs_dir, ec);
  auto cmd = foreground_command(opts, inst, port);
  std::string why;
  int pid = spawn_detached(cmd, inst.log_file, why);
  if (pid < 0) {
    std::cerr << "Gateway was not started: " << why << "\n";
    return 1;
  }
  // The child leads its own session: its process group is its pid.
  auto identity = process_identity(pid);
  auto colon = identity.find(':');
  json state{
    {"pid", pid},
    {"started_at", gateway_utc_now()},
    {"platform", "Linux"},
    {"port", port},
    {"workspace", inst.workspace.empty() ? json() : json(inst.workspace)},
    {"config_path", inst.default_config ? json() : json(inst.config_path)},
    {"command", cmd},
    {"log_path", inst.log_file},
    {"identity", colon == std::string::npos
                   ? json()
                   : json(std::to_string(pid) + identity.substr(colon))}};
  if (auto err = write_gateway_state(inst, state); !err.empty())
    std::cerr << "warning: cannot record the gateway (" << err
              << "); `nanobot gateway stop` will not find it\n";
  int wait_s = opts.timeout_s.value_or(default_start_wait_s);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(wait_s);
  while (true) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      clear_gateway_state(inst);
      std::cerr << "Gateway was not started: it exited during start-up ("
                << (WIFEXITED(status)
                      ? "exit code " + std::to_string(WEXITSTATUS(status))
                      : "signal " + std::to_string(WTERMSIG(status)))
                << ").\n";
      print_log_end(inst.log_file, 20);
      return 1;
    }
    if (health_uptime(cfg.gateway.host, port)) {
      std::cout << "Gateway started in the background.\n";
      print_gateway_status(gateway_status_of(inst, cfg), inst);
      return 0;
    }
    if (std::chrono::steady_clock::now() >= until)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::cerr << "Gateway (pid " << pid << ") did not answer on "
            << reachable_host(cfg.gateway.host) << ":" << port
            << "/health within " << wait_s
            << " s; it keeps starting. `nanobot gateway status` tells when "
               "it is up, `nanobot gateway stop` ends it.\n";
  print_log_end(inst.log_file, 20);
  return 1;
}

int gateway_status_command(const options& opts, const settings& cfg) {
  auto inst = gateway_instance_for(opts);
  print_gateway_status(gateway_status_of(inst, cfg), inst);
  return 0;
}

int gateway_logs_command(const options& opts) {
  auto inst = gateway_instance_for(opts);
  size_t tail = static_cast<size_t>(opts.tail.value_or(200));
  bool follow = opts.follow.value_or(::isatty(STDOUT_FILENO) != 0);
  std::error_code ec;
  if (!fs::exists(inst.log_file, ec) && !follow) {
    std::cout << "No gateway log output available yet (" << inst.log_file
              << ").\n";
    return 0;
  }
  for (auto& l : tail_lines(inst.log_file, tail))
    std::cout << l << "\n";
  std::cout << std::flush;
  if (!follow)
    return 0;
  // Print what is appended from the current end on, until interrupted;
  // a truncated or replaced file is read again from its start.
  std::ifstream in{inst.log_file, std::ios::binary};
  in.seekg(0, std::ios::end);
  auto pos = in ? static_cast<std::uintmax_t>(in.tellg()) : 0;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto size = fs::file_size(inst.log_file, ec);
    if (ec)
      continue;
    if (size < pos)
      pos = 0;
    if (size == pos)
      continue;
    std::ifstream f{inst.log_file, std::ios::binary};
    f.seekg(static_cast<std::streamoff>(pos));
    std::string chunk(size - pos, '\0');
    f.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<size_t>(f.gcount()));
    pos += chunk.size();
    std::cout << chunk << std::flush;
  }
}

int gateway_stop_command(const options& opts, const settings& cfg) {
  auto inst = gateway_instance_for(opts);
  auto st = gateway_status_of(inst, cfg);
  if (!st.running) {
    std::cout << "Gateway is not running.\n";
    print_gateway_status(st, inst);
    return 0;
  }
  if (st.pid <= 0) {
    std::cerr << "Gateway was not stopped: it answers on port "
              << st.port.value_or(0)
              << " but has no state file (started in a terminal or by a "
                 "service manager: stop it there).\n";
    print_gateway_status(st, inst);
    return 1;
  }
  int wait_s = opts.timeout_s.value_or(default_stop_wait_s);
  std::cout << "Stopping the gateway (pid " << st.pid << ", up to " << wait_s
            << " s)...\n"
            << std::flush;
  auto started = steady_ms();
  if (!terminate_and_wait(st.pid, wait_s)) {
    std::cerr << "Gateway was not stopped: pid " << st.pid
              << " is still alive.\n";
    return 1;
  }
  clear_gateway_state(inst);
  std::cout << "Gateway stopped (in " << (steady_ms() - started) / 1000.0
            << " s).\n";
  print_gateway_status(gateway_status_of(inst, cfg), inst);
  return 0;
}

int gateway_restart_command(const options& opts, const settings& cfg) {
  auto inst = gateway_instance_for(opts);
  auto st = gateway_status_of(inst, cfg);
  if (!st.running || st.pid <= 0) {
    std::cerr << (st.running
                    ? "Gateway answers but has no state file (started in a "
                      "terminal or by a service manager); restart it there.\n"
                    : "Gateway is not running; there is nothing to restart. "
                      "Start one with `nanobot gateway --background`.\n");
    print_gateway_status(st, inst);
    return 1;
  }
  int wait_s = opts.timeout_s.value_or(default_stop_wait_s);
  if (!terminate_and_wait(st.pid, wait_s)) {
    std::cerr << "Gateway restart failed: pid " << st.pid << " did not exit.\n";
    return 1;
  }
  clear_gateway_state(inst);
  auto again = opts;
  if (!again.port && st.port)
    again.port = st.port;
  return gateway_start_background(again, cfg);
}

} // namespace nb

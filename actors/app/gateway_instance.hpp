// One local gateway as `nanobot gateway --background|status|stop|...` sees
// it, laid out as the original nanobot lays it out (nanobot/gateway/
// runtime.py, process_runtime.py), so either program can manage a gateway
// the other started:
// - the state ("pid file"): <config-dir>/run/gateway[.<id>].json with pid,
//   started_at, platform, port, workspace, config_path, command, log_path
//   and identity ("<process group>:<start time in clock ticks>", which
//   tells the process from a later one that reused its pid);
// - its output: <config-dir>/logs/gateway[.<id>].log;
// - <id> is the first 16 hex digits of the SHA-1 of "<workspace>|<config>"
//   (each only when given: the workspace by -w, the config when it is not
//   ~/.nanobot/config.json); the default instance has no <id>.
// Plain blocking calls for the command line; nothing here throws.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/app/options.hpp"
#include "config/settings.hpp"

namespace nb {

struct gateway_instance {
  std::string config_path; ///< absolute
  bool default_config = false;
  std::string workspace; ///< absolute, "" unless -w named one
  std::string run_dir;
  std::string logs_dir;
  std::string state_file;
  std::string log_file;
};

/// The instance the options select (-c, -w).
gateway_instance gateway_instance_for(const options& opts);

/// What `status` shows.
struct gateway_status {
  bool running = false;
  std::string reason = "not_started"; ///< as the original words it
  int pid = 0;
  std::optional<int> port;
  std::string started_at;
  std::optional<double> uptime_s; ///< from /health, when it answers
  std::string health_url;
  bool health_answers = false;
};

/// Reads the state file; a record of a process that is gone (or a reused
/// pid) is removed, as the original does.
gateway_status gateway_status_of(const gateway_instance& inst,
                                 const settings& cfg);

/// Prints a status in the original's lines (Running, Reason, PID, ...).
void print_gateway_status(const gateway_status& st,
                          const gateway_instance& inst);

/// The state file's JSON, or nullopt when missing or unreadable.
std::optional<nlohmann::json> read_gateway_state(const gateway_instance& inst);

/// Writes the state file atomically; "" or the error.
std::string write_gateway_state(const gateway_instance& inst,
                                const nlohmann::json& state);

void clear_gateway_state(const gateway_instance& inst);

/// "<process group>:<start time>" of a live process ("" when unknown).
std::string process_identity(int pid);

/// True while `pid` exists and is not a zombie.
bool process_alive(int pid);

/// The host to reach a server bound to `host` from this machine.
std::string reachable_host(const std::string& host);

/// The uptime /health reports, or nullopt when nothing answers.
std::optional<double> health_uptime(const std::string& host, int port);

/// The last `lines` lines of a file (fewer when it is shorter).
std::vector<std::string> tail_lines(const std::string& path, size_t lines);

/// The running executable's path (/proc/self/exe).
std::string self_executable();

} // namespace nb

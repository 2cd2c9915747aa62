// Command-line options of the nanobot executable.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nb {

struct options {
  std::string command;     ///< onboard, status, agent, gateway, channels
  std::string subcommand;  ///< channels: status
  std::string config_path; ///< -c/--config ("" = ~/.nanobot/config.json)
  std::string workspace;   ///< -w/--workspace
  std::optional<std::string> message; ///< agent -m
  std::string session = "cli:direct"; ///< agent -s
  std::optional<int> port;            ///< gateway -p (health/stats port)
  std::string host;                   ///< serve -H (API host)
  std::optional<int> timeout_s;       ///< serve -t (API request timeout)
  bool stream = true;
  bool verbose = false;
  bool logs = false; ///< agent --logs: show info logs on stderr
  bool markdown = true; ///< agent --markdown / --no-markdown
  std::string role;  ///< node --role: gateway | agent | tools
  std::string error; ///< non-empty: the command line was not understood
};

/// Parses argv; unknown options and missing values set `error`.
options parse_options(const std::vector<std::string>& args);

/// The --help text.
std::string usage_text();

/// A subcommand's misuse: "nanobot <command>: <what>" and the subcommand's
/// usage on stderr; returns exit code 2.
int usage_error(const char* command, const char* usage,
                const std::string& what);

} // namespace nb

// Command-line options of the nanobot executable.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nb {

struct options {
  std::string command; ///< onboard, status, agent, gateway, channels, ...
  /// The word after commands that have sub-actions (channels status,
  /// gateway stop, sessions show, ...).
  std::string subcommand;
  /// Further words (`sessions show KEY`, `trigger JOB`), for the commands
  /// that take them; the others refuse them.
  std::vector<std::string> positionals;
  std::string config_path; ///< -c/--config ("" = ~/.nanobot/config.json)
  std::string workspace;   ///< -w/--workspace
  std::string agent;       ///< plugins -a/--agent: an agents.list id
  std::optional<std::string> message; ///< agent -m
  std::string session = "cli:direct"; ///< agent -s
  std::optional<int> port;            ///< gateway -p (health/stats port)
  std::string host;                   ///< serve -H (API host)
  /// serve -t (API request timeout); gateway stop/restart, trigger --timeout
  /// (how long to wait).
  std::optional<int> timeout_s;
  bool stream = true;
  bool verbose = false;
  bool logs = false; ///< agent --logs: show info logs on stderr
  bool markdown = true; ///< agent --markdown / --no-markdown
  bool foreground = false;    ///< gateway --foreground
  bool background = false;    ///< gateway --background
  std::optional<int> tail;    ///< gateway logs --tail N
  std::optional<bool> follow; ///< gateway logs -f/--follow / --no-follow
  bool system_unit = false;   ///< gateway install-service --system
  bool dry_run = false;       ///< gateway install-service --dry-run
  bool start_service = true;  ///< gateway install-service --no-start
  std::string service_name = "nanobot-gateway"; ///< --name
  bool set_main = false;                        ///< provider login --set-main
  std::string role;  ///< node --role: gateway | agent | tools
  std::string error; ///< non-empty: the command line was not understood
};

/// Parses argv; unknown options and missing values set `error`.
options parse_options(const std::vector<std::string>& args);

/// The --help text.
std::string usage_text();

/// The commands main() knows, for "did you mean".
const std::vector<std::string>& command_names();

/// The closest of `candidates` to `word` when it is near enough to be a
/// typo ("" when none is).
std::string closest_word(std::string_view word,
                         const std::vector<std::string>& candidates);

/// "unknown <what> 'word'; did you mean 'x'?" (the second part only when
/// one is close).
std::string unknown_word(const std::string& what, const std::string& word,
                         const std::vector<std::string>& candidates);

/// A subcommand's misuse: "nanobot <command>: <what>" and the subcommand's
/// usage on stderr; returns exit code 2.
int usage_error(const char* command, const char* usage,
                const std::string& what);

} // namespace nb

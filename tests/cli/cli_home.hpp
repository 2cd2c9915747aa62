// A temporary nanobot home for the command-line tests: a config with free
// ports and a workspace, and a runner for the real executable with extra
// environment entries.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/child_process.hpp"
#include "tests/support/scratch_dir.hpp"

namespace nb::test {

struct cli_home {
  scratch_dir home;
  std::string config = home.at("config.json");
  std::string workspace = home.at("workspace");
  int api_port = free_port();
  int gateway_port = free_port();

  /// `extra` is merged into the config (JSON merge patch).
  explicit cli_home(nlohmann::json extra = nlohmann::json::object());

  /// Runs `nanobot <args> -c <config>` to its end.
  run_result nanobot(std::vector<std::string> args,
                     const std::vector<std::string>& env = {},
                     const std::string& stdin_text = "") const;

  /// The state file `gateway --background` writes for this config.
  std::string gateway_state_file() const;
  /// Its pid, 0 when there is no state file.
  int gateway_pid() const;
};

/// Whether `text` contains `part`.
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Ends a background gateway a failed test left running.
struct gateway_reaper {
  const cli_home& h;
  ~gateway_reaper();
};

} // namespace nb::test

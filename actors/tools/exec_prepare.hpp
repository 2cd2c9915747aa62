// Tools: exec's checks and launch plan, shared by the one-shot run
// (exec.cpp) and the background sessions (exec_sessions.cpp): arguments,
// shell, working directory, the deny/allow lists, URL and path guards, the
// child's environment and limits, the sandbox.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "actors/tools/exec_process.hpp"
#include "actors/tools/registry.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"
#include "messages/exec_session.hpp"

namespace nb {

/// The most seconds a call may ask for (timeout).
inline constexpr int exec_max_timeout_s = 600;

/// The output budget exec and write_stdin accept (max_output_chars).
inline constexpr int64_t exec_default_output = 10000;
inline constexpr int64_t exec_min_output = 1000;
inline constexpr int64_t exec_max_output = 50000;

/// A schema type that also admits null: ["integer", "null"].
inline nlohmann::json nullable_type(const char* type) {
  return nlohmann::json{type, "null"};
}

/// The schema of max_output_chars (and its alias max_output_tokens) in
/// exec and write_stdin.
inline nlohmann::json output_cap_schema(const char* text) {
  return {{"type", nullable_type("integer")},
          {"description", text},
          {"minimum", exec_min_output},
          {"maximum", exec_max_output}};
}

/// Checks exec's `args` under `ctx` and fills `out` with the command to
/// start; returns the refusal the model sees when the command must not
/// run. `max_output` gets the clamped max_output_chars.
std::optional<tool_output> prepare_exec(const nlohmann::json& args,
                                        const tool_context& ctx,
                                        exec_launch& out, int64_t& max_output);

/// The environment exec's children get: HOME, LANG, TERM, PATH (with
/// pathAppend), PYTHONUNBUFFERED and the allowedEnvKeys; no secret.
std::vector<std::string> exec_child_env(const exec_settings& cfg);

/// The rlimits of a child that may run `timeout` seconds (0 = no limit).
child_limits exec_child_limits(const exec_settings& cfg, int timeout);

/// When `ctx` restricts the workspace (real path `root`), puts `out` in
/// exec's sandbox (binds, network, hidden config); the refusal when
/// bubblewrap cannot run.
std::optional<tool_output> put_in_sandbox(const tool_context& ctx,
                                          const std::string& root,
                                          exec_launch& out);

/// The process options for `launch` (no cancel or start hooks).
process_options process_options_for(const exec_launch& launch);

/// The sandbox request for a sandboxed `launch`.
sandbox_request sandbox_request_for(const exec_launch& launch);

} // namespace nb

// exec: one shell command in a fresh process group, with a time limit; in
// the bubblewrap sandbox (actors/tools/sandbox/) when the workspace is
// restricted.
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/exec_cancel.hpp"
#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/exec_session_tools.hpp"

namespace nb {

namespace {

using nlohmann::json;

tool_output exec_tool(const json& args, const tool_context& ctx) {
  exec_launch launch;
  int64_t max_chars = exec_default_output;
  if (auto refused = prepare_exec(args, ctx, launch, max_chars))
    return *refused;
  // yield_time_ms (even 0) asks for a background session; null or absent
  // keeps the one-shot run.
  if (args.contains("yield_time_ms") && args["yield_time_ms"].is_number())
    return start_exec_session(
      std::move(launch), args["yield_time_ms"].get<int64_t>(), max_chars, ctx);
  auto opts = process_options_for(launch);
  opts.capture_limit = static_cast<size_t>(max_chars);
  auto ran = run_stoppable(launch, std::move(opts), ctx);
  if (!ran)
    return tool_failure(
      "Error: Command not run: the task was stopped (/stop).");
  auto& r = *ran;
  if (r.cancelled)
    return tool_failure("Error: Command stopped (/stop); its processes were "
                        "killed.");
  if (!r.error.empty())
    return tool_failure("Error executing command: " + r.error);
  if (r.timed_out)
    return tool_failure("Error: Command timed out after "
                        + std::to_string(launch.timeout_s) + " seconds");
  return {format_exec_output(r, static_cast<size_t>(max_chars)), false};
}

} // namespace

void add_exec(tool_registry& reg) {
  json schema = {
    {"type", "object"},
    {"properties",
     {{"command",
       {{"type", "string"}, {"description", "The shell command to run"}}},
      {"cmd", {{"type", "string"}, {"description", "Same as command"}}},
      {"working_dir",
       {{"type", "string"},
        {"description", "Directory to run in (default: the workspace)"}}},
      {"workdir", {{"type", "string"}, {"description", "Same as working_dir"}}},
      {"timeout",
       {{"type", "integer"},
        {"description", "Seconds before the command is killed; lower it for "
                        "quick checks (default and most: the configured "
                        "tools.exec.timeout, 60 unless changed)"},
        {"minimum", 1},
        {"maximum", exec_max_timeout_s}}},
      {"shell",
       {{"type", nullable_type("string")},
        {"description", "bash (default), sh or zsh"}}},
      {"login",
       {{"type", nullable_type("boolean")},
        {"description", "Run bash or zsh as a login shell (default false)"},
        {"default", false}}},
      {"max_output_chars",
       output_cap_schema("Most output characters to return (default 10000, at "
                         "most 50000)")},
      {"yield_time_ms",
       {{"type", nullable_type("integer")},
        {"description",
         "Milliseconds to wait for output before answering (at most "
         "30000). Set it for servers, watchers and programs that read "
         "input: a command still running then becomes a background "
         "session whose session_id write_stdin polls, types into or "
         "stops. Leave it out to run the command to completion."},
        {"minimum", 0},
        {"maximum", exec_max_yield_ms}}},
      {"max_output_tokens", output_cap_schema("Same as max_output_chars")}}},
    {"additionalProperties", false},
  };
  reg.add({"exec",
           "Run a shell command (bash by default) and return its output and "
           "exit code. Use it for builds, tests, git and other programs; "
           "prefer read_file, list_dir, write_file and edit_file for plain "
           "file work. Without yield_time_ms nothing can be typed into the "
           "command (stdin is empty), so pass -y/--yes to installers; with "
           "yield_time_ms a command that keeps running answers with a "
           "session_id for write_stdin. Output beyond 10000 characters is "
           "cut in the middle; the default timeout is 60 s. When the "
           "workspace is restricted, commands run in a sandbox: only the "
           "workspace is writable, the host's loopback and private networks "
           "are unreachable, and background processes end with the "
           "command.",
           {}, false, true},
          schema,
          exec_tool);
}

} // namespace nb

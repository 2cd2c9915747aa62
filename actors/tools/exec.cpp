// exec: one shell command in a fresh process group, with a time limit; in
// the bubblewrap sandbox (actors/tools/sandbox/) when the workspace is
// restricted.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <sys/stat.h>
#include <unistd.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/exec_cancel.hpp"
#include "actors/tools/exec_guard.hpp"
#include "actors/tools/exec_process.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"
#include "actors/tools/ssrf.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr int max_timeout_s = 600;
constexpr int64_t default_output = 10000;
constexpr int64_t min_output = 1000;
constexpr int64_t max_output = 50000;

std::string str_arg(const json& args, const char* a, const char* b) {
  for (auto key : {a, b})
    if (args.contains(key) && args[key].is_string()
        && !args[key].get_ref<const std::string&>().empty())
      return args[key].get<std::string>();
  return {};
}

int64_t int_arg(const json& args, const char* a, const char* b) {
  for (auto key : {a, b})
    if (args.contains(key) && args[key].is_number_integer())
      return args[key].get<int64_t>();
  return 0;
}

// Only the usual shells, and only from the system directories: a shell
// binary inside the workspace would be the model's own program.
std::string resolve_shell(const std::string& shell, std::string& error) {
  static const char* dirs[] = {"/usr/bin", "/bin", "/usr/local/bin"};
  auto name = shell.empty() ? std::string{"bash"} : shell;
  if (name.find_first_of(std::string{"\n\r\0", 3}) != std::string::npos) {
    error = "Error: shell contains invalid characters";
    return {};
  }
  if (name[0] == '/') {
    auto slash = name.rfind('/');
    auto dir = name.substr(0, slash);
    auto base = name.substr(slash + 1);
    if (std::find(std::begin(dirs), std::end(dirs), dir) == std::end(dirs))
      error = "Error: shell must be bash, sh or zsh from /bin, /usr/bin or "
              "/usr/local/bin";
    name = base;
    if (!error.empty())
      return {};
  }
  if (name != "bash" && name != "sh" && name != "zsh") {
    error = "Error: unsupported shell '" + shell + "'. Allowed: bash, sh, zsh";
    return {};
  }
  for (auto dir : dirs) {
    auto path = std::string{dir} + "/" + name;
    if (::access(path.c_str(), X_OK) == 0)
      return path;
  }
  error = "Error: shell not found: " + name;
  return {};
}

std::vector<std::string> child_env(const exec_settings& cfg) {
  auto get = [](const char* k, const char* fallback) {
    const char* v = std::getenv(k);
    return std::string{v && *v ? v : fallback};
  };
  auto path = get("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                          "/usr/bin:/sbin:/bin");
  // Set directly, never through the shell: "$(...)" in the config stays
  // text.
  if (!cfg.path_append.empty())
    path += ":" + cfg.path_append;
  std::vector<std::string> env{"HOME=" + get("HOME", "/tmp"),
                               "LANG=C.UTF-8", "TERM=dumb",
                               "PYTHONUNBUFFERED=1", "PATH=" + path};
  // Only keys the user listed on purpose (tools.exec.allowedEnvKeys).
  for (auto& key : cfg.allowed_env_keys) {
    if (key.empty() || key.find('=') != std::string::npos || key == "PATH"
        || key == "HOME")
      continue;
    if (const char* v = std::getenv(key.c_str()))
      env.push_back(key + "=" + v);
  }
  return env;
}

child_limits limits_for(const exec_settings& cfg, int timeout) {
  child_limits l;
  l.processes = static_cast<uint64_t>(std::max(0, cfg.max_processes));
  l.memory_mb = static_cast<uint64_t>(std::max(0, cfg.max_memory_mb));
  // CPU time cannot exceed wall time unless many processes share it; the
  // margin keeps an ordinary timeout the one that fires first.
  l.cpu_s = cfg.max_cpu_s > 0 ? static_cast<uint64_t>(cfg.max_cpu_s)
            : timeout > 0     ? static_cast<uint64_t>(timeout) + 5
                              : 0;
  return l;
}

// http(s) URLs in the command that point inside (B11: curl to the metadata
// service, wget to localhost). A name that does not resolve is left alone:
// nothing can reach it, and the command may not even fetch it.
std::string check_command_urls(const std::string& command,
                               const tool_context& ctx) {
  std::string low = command;
  for (auto& c : low)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t at = 0;
  auto policy = policy_for(ctx);
  while ((at = low.find("http", at)) != std::string::npos) {
    auto end = command.find_first_of(" \t\r\n'\"<>|;&()`", at);
    auto word = command.substr(at, end == std::string::npos ? end : end - at);
    at += 4;
    parsed_url u;
    if (word.find("://") == std::string::npos || !parse_url(word, u).empty())
      continue;
    auto v = check_url_target(u, policy);
    if (!v.ok() && v.error.find("does not resolve") == std::string::npos)
      return std::string{"Error: Command blocked by safety guard "
                         "(internal/private URL detected: "}
             + u.origin() + ")" + boundary_note;
  }
  return {};
}

tool_output exec_tool(const json& args, const tool_context& ctx) {
  auto command = str_arg(args, "command", "cmd");
  if (command.empty())
    return tool_failure("Error: Missing command. Provide command or cmd.");
  if (command.find('\0') != std::string::npos)
    return tool_failure("Error: command contains a NUL byte");
  auto working_dir = str_arg(args, "working_dir", "workdir");
  std::string error;
  // shell and login are nullable: null means the default.
  auto shell = resolve_shell(str_arg(args, "shell", "shell"), error);
  if (!error.empty())
    return tool_failure(error);
  auto max_chars = int_arg(args, "max_output_chars", "max_output_tokens");
  max_chars = std::clamp(max_chars ? max_chars : default_output, min_output,
                         max_output);
  auto requested = int_arg(args, "timeout", "timeout");
  // tools.exec.timeout is the ceiling too: the model may shorten a command's
  // time, never lengthen it past what the owner configured.
  auto ceiling = ctx.exec.timeout_s > 0 ? ctx.exec.timeout_s : max_timeout_s;
  int timeout = requested > 0
                  ? static_cast<int>(std::min<int64_t>(requested, ceiling))
                  : std::max(0, ctx.exec.timeout_s);
  auto root = resolve_real_path(ctx.workspace, "/");
  if (!root.ok())
    return tool_failure(root.error);
  auto cwd = root;
  if (!working_dir.empty()) {
    cwd = resolve_real_path(working_dir, ctx.workspace);
    if (!cwd.ok())
      return tool_failure("Error: working_dir could not be resolved ("
                          + cwd.error + ")" + boundary_note);
    if (ctx.restrict_to_workspace && !path_within(cwd.path, root.path))
      return tool_failure(
        std::string{"Error: working_dir is outside the configured "
                    "workspace"}
        + boundary_note);
  }
  struct stat st;
  if (::stat(cwd.path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return tool_failure(
      "Error: working_dir does not exist or is not a directory: "
      + (working_dir.empty() ? ctx.workspace : working_dir));
  // Allowlist mode: a command whose every segment is allowed skips the
  // deny list (the user vouched for it); anything else is refused.
  std::string allow_error;
  auto verdict = check_allow_patterns(command, ctx.exec.allow_patterns,
                                      allow_error);
  if (verdict == allow_verdict::refused)
    return tool_failure(allow_error);
  if (verdict == allow_verdict::not_configured) {
    if (auto deny = check_deny_patterns(command, ctx.exec.deny_patterns);
        !deny.empty())
      return tool_failure(deny);
  }
  if (auto bad = check_command_urls(command, ctx); !bad.empty())
    return tool_failure(bad);
  // The sandbox's configured binds are as reachable as the workspace.
  std::vector<std::string> ro_binds, rw_binds;
  for (auto& b : ctx.exec.sandbox_ro_binds)
    ro_binds.push_back(expand_user(b));
  for (auto& b : ctx.exec.sandbox_rw_binds)
    rw_binds.push_back(expand_user(b));
  if (ctx.restrict_to_workspace) {
    auto binds = ro_binds;
    binds.insert(binds.end(), rw_binds.begin(), rw_binds.end());
    if (auto bad = check_command_paths(command, cwd.path, root.path, binds);
        !bad.empty())
      return tool_failure(bad);
  }
  process_options opts;
  opts.program = shell;
  opts.argv = {shell};
  auto base = shell.substr(shell.rfind('/') + 1);
  bool login = args.contains("login") && args["login"].is_boolean()
               && args["login"].get<bool>();
  if (login && base != "sh")
    opts.argv.push_back("-l");
  opts.argv.push_back("-c");
  opts.argv.push_back(command);
  opts.env = child_env(ctx.exec);
  opts.cwd = cwd.path;
  opts.timeout_s = timeout;
  opts.capture_limit = static_cast<size_t>(max_chars);
  opts.limits = limits_for(ctx.exec, timeout);
  exec_cancel stop{ctx};
  if (stop.refused())
    return tool_failure(
      "Error: Command not run: the task was stopped (/stop).");
  opts.cancelled = [&stop] { return stop.requested(); };
  process_result r;
  if (ctx.restrict_to_workspace) {
    auto& status = sandbox_status_for();
    if (!status.available)
      return tool_failure("Error: " + sandbox_unavailable_text(status));
    sandbox_request req;
    req.workspace = root.path;
    req.cwd = cwd.path;
    req.config_dir = ctx.config_dir;
    req.config_file = ctx.config_file;
    req.network = ctx.exec.network;
    req.ro_binds = std::move(ro_binds);
    req.rw_binds = std::move(rw_binds);
    req.max_processes = ctx.exec.max_processes;
    r = run_sandboxed(std::move(opts), req, status);
  } else {
    r = run_process(opts);
  }
  if (r.cancelled)
    return tool_failure("Error: Command stopped (/stop); its processes were "
                        "killed.");
  if (!r.error.empty())
    return tool_failure("Error executing command: " + r.error);
  if (r.timed_out)
    return tool_failure("Error: Command timed out after "
                        + std::to_string(timeout) + " seconds");
  return {format_exec_output(r, static_cast<size_t>(max_chars)), false};
}

} // namespace

void add_exec(tool_registry& reg) {
  auto nullable = [](const char* type) { return json{type, "null"}; };
  auto output_cap = [&](const char* text) {
    return json{{"type", nullable("integer")}, {"description", text},
                {"minimum", min_output}, {"maximum", max_output}};
  };
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
        {"maximum", max_timeout_s}}},
      {"shell",
       {{"type", nullable("string")},
        {"description", "bash (default), sh or zsh"}}},
      {"login",
       {{"type", nullable("boolean")},
        {"description", "Run bash or zsh as a login shell (default false)"},
        {"default", false}}},
      {"max_output_chars",
       output_cap("Most output characters to return (default 10000, at "
                  "most 50000)")},
      {"max_output_tokens", output_cap("Same as max_output_chars")}}},
    {"additionalProperties", false},
  };
  reg.add({"exec",
           "Run a shell command (bash by default) and return its output and "
           "exit code. Use it for builds, tests, git and other programs; "
           "prefer read_file, list_dir, write_file and edit_file for plain "
           "file work. Nothing can be typed into the command (stdin is "
           "empty), so pass -y/--yes to installers. Output beyond 10000 "
           "characters is cut in the middle; the default timeout is 60 s. "
           "When the workspace is restricted, commands run in a sandbox: "
           "only the workspace is writable, the host's loopback and private "
           "networks are unreachable, and background processes end with "
           "the command.",
           schema.dump(), false, true},
          exec_tool);
}

} // namespace nb

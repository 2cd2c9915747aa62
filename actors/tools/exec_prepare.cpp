#include "actors/tools/exec_prepare.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <sys/stat.h>
#include <unistd.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/exec_guard.hpp"
#include "actors/tools/ssrf.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

std::string str_arg(const json& args, const char* a, const char* b) {
  for (auto key : {a, b})
    if (args.contains(key) && args[key].is_string()
        && !args[key].get_ref<const std::string&>().empty())
      return args[key].get<std::string>();
  return {};
}

int64_t exec_int_arg(const json& args, const char* a, const char* b) {
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

} // namespace

std::vector<std::string> exec_child_env(const exec_settings& cfg) {
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
  std::vector<std::string> env{"HOME=" + get("HOME", "/tmp"), "LANG=C.UTF-8",
                               "TERM=dumb", "PYTHONUNBUFFERED=1",
                               "PATH=" + path};
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

child_limits exec_child_limits(const exec_settings& cfg, int timeout) {
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

std::optional<tool_output> put_in_sandbox(const tool_context& ctx,
                                          const std::string& root,
                                          exec_launch& out) {
  if (!ctx.restrict_to_workspace)
    return std::nullopt;
  auto& status = sandbox_status_for(ctx.bwrap);
  if (!status.available)
    return tool_failure("Error: " + sandbox_unavailable_text(status));
  out.sandboxed = true;
  out.workspace = root;
  out.config_dir = ctx.config_dir;
  out.config_file = ctx.config_file;
  out.network = ctx.exec.network;
  out.ro_binds.clear();
  out.rw_binds.clear();
  for (auto& b : ctx.exec.sandbox_ro_binds)
    out.ro_binds.push_back(expand_user(b));
  for (auto& b : ctx.exec.sandbox_rw_binds)
    out.rw_binds.push_back(expand_user(b));
  out.sandbox_max_processes = ctx.exec.max_processes;
  return std::nullopt;
}

namespace {

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

} // namespace

std::optional<tool_output> prepare_exec(const json& args,
                                        const tool_context& ctx,
                                        exec_launch& out, int64_t& max_output) {
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
  auto max_chars = exec_int_arg(args, "max_output_chars", "max_output_tokens");
  max_output = std::clamp(max_chars ? max_chars : exec_default_output,
                          exec_min_output, exec_max_output);
  auto requested = exec_int_arg(args, "timeout", "timeout");
  // tools.exec.timeout is the ceiling too: the model may shorten a command's
  // time, never lengthen it past what the owner configured.
  auto ceiling =
    ctx.exec.timeout_s > 0 ? ctx.exec.timeout_s : exec_max_timeout_s;
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
  auto verdict =
    check_allow_patterns(command, ctx.exec.allow_patterns, allow_error);
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
  out = {};
  out.command = command;
  out.program = shell;
  out.argv = {shell};
  auto base = shell.substr(shell.rfind('/') + 1);
  bool login = args.contains("login") && args["login"].is_boolean()
               && args["login"].get<bool>();
  if (login && base != "sh")
    out.argv.push_back("-l");
  out.argv.push_back("-c");
  out.argv.push_back(command);
  out.env = exec_child_env(ctx.exec);
  out.cwd = cwd.path;
  out.timeout_s = timeout;
  auto limits = exec_child_limits(ctx.exec, timeout);
  out.max_processes = limits.processes;
  out.max_memory_mb = limits.memory_mb;
  out.max_cpu_s = limits.cpu_s;
  if (auto refused = put_in_sandbox(ctx, root.path, out))
    return refused;
  return std::nullopt;
}

process_options process_options_for(const exec_launch& launch) {
  process_options opts;
  opts.program = launch.program;
  opts.argv = launch.argv;
  opts.env = launch.env;
  opts.cwd = launch.cwd;
  opts.timeout_s = launch.timeout_s;
  opts.limits.processes = launch.max_processes;
  opts.limits.memory_mb = launch.max_memory_mb;
  opts.limits.cpu_s = launch.max_cpu_s;
  return opts;
}

sandbox_request sandbox_request_for(const exec_launch& launch) {
  sandbox_request req;
  req.workspace = launch.workspace;
  req.cwd = launch.cwd;
  req.config_dir = launch.config_dir;
  req.config_file = launch.config_file;
  req.network = launch.network;
  req.ro_binds = launch.ro_binds;
  req.rw_binds = launch.rw_binds;
  req.max_processes = launch.sandbox_max_processes;
  return req;
}

} // namespace nb

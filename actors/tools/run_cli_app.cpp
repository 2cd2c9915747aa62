// run_cli_app: runs a CLI app the user installed through the original's
// Settings page (tools.cliApps), by argv and never through a shell, with
// exec's environment (no secrets), limits, /stop and, when the workspace
// is restricted, exec's sandbox. The original's names, schema and texts;
// neither read-only nor exclusive, as there.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <sys/stat.h>

#include "actors/common/strings.hpp"
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/cli_apps.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/exec_cancel.hpp"
#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

// The original's cap on the whole answer (its head is kept).
constexpr size_t cli_output_max = 12000;
constexpr int cli_max_timeout_s = 600;

// Python's shlex.quote: safe words as they are, the rest single-quoted.
std::string cli_shell_quote(const std::string& s) {
  if (s.empty())
    return "''";
  bool safe = true;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_'
          || std::string_view{"@%+=:,./-"}.find(static_cast<char>(c))
               != std::string_view::npos))
      safe = false;
  if (safe)
    return s;
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string{"'\"'\"'"} : std::string(1, c);
  return out + "'";
}

std::string cli_rstrip(std::string s) {
  auto end = s.find_last_not_of(" \t\r\n\f\v");
  s.erase(end == std::string::npos ? 0 : end + 1);
  return s;
}

const cli_app_entry* find_installed(const std::vector<cli_app_entry>& apps,
                                    const std::string& name) {
  auto wanted = ascii_lower(name);
  for (auto& a : apps)
    if (ascii_lower(a.name) == wanted)
      return &a;
  return nullptr;
}

// The original's answer: exit line, command, the streams, the artifacts;
// cut to 12 000 bytes from the front. `extra` counts bytes of clipped
// streams never held here.
std::string cli_answer(const std::string& name, const std::string& command,
                       const process_result& r,
                       const std::vector<std::string>& artifacts, bool images) {
  std::string text = "CLI app '" + name + "' exited "
                     + std::to_string(r.exit_code)
                     + ".\nCommand: " + cli_rstrip(command);
  uint64_t extra = 0;
  auto add_stream = [&](const captured_stream& s, const char* label) {
    if (s.total == 0)
      return;
    extra += s.total - s.head.size() - s.tail.size();
    text += std::string{"\n\n"} + label + ":\n" + cli_rstrip(s.head + s.tail);
  };
  add_stream(r.out, "STDOUT");
  add_stream(r.err, "STDERR");
  if (!artifacts.empty()) {
    text += "\n\nArtifacts created or updated:";
    for (auto& line : artifacts)
      text += "\n" + line;
    if (images)
      text += "\n\nTo show a preview in WebUI, reference a raster artifact "
              "with Markdown using its workspace-relative path, for example "
              "`![diagram](diagram.png)`.";
  }
  uint64_t full = text.size() + extra;
  if (full > cli_output_max) {
    text = sanitize_utf8(text.substr(0, cli_output_max));
    text += "\n\n... truncated " + std::to_string(full - cli_output_max)
            + " characters ...";
    return text;
  }
  return sanitize_utf8(text);
}

tool_output run_cli_app_tool(const json& args, const tool_context& ctx) {
  auto name = args.value("name", std::string{});
  auto apps = installed_cli_apps(ctx.config_dir);
  // As the original: the name is looked up in the catalog (fetched again
  // once older than catalogTtlSeconds), then in installed.json. With no
  // catalog at all (never fetched, offline) the record alone decides.
  auto catalog = load_cli_catalog(ctx.config_dir, ctx.cli_apps.catalog_ttl_s,
                                  catalog_mode::fresh);
  const cli_app_entry* app = nullptr;
  std::string entry;
  if (catalog.error.empty()) {
    auto* row = find_cli_app(catalog, name);
    if (!row)
      return tool_failure("Error: CLI app '" + name + "' not found");
    app = find_installed(apps, cli_field(*row, "name"));
    if (!app)
      return tool_failure("Error: CLI app '" + name + "' is not installed");
    entry = app->entry_point.empty() ? cli_field(*row, "entry_point")
                                     : app->entry_point;
  } else {
    app = find_installed(apps, name);
    if (!app)
      return tool_failure("Error: CLI app '" + name + "' not found");
    entry = app->entry_point;
  }
  auto root = resolve_real_path(ctx.workspace, "/");
  if (!root.ok())
    return tool_failure(root.error);
  auto cwd = root;
  if (args.contains("working_dir") && args["working_dir"].is_string()
      && !args["working_dir"].get_ref<const std::string&>().empty()) {
    cwd =
      resolve_real_path(args["working_dir"].get<std::string>(), ctx.workspace);
    if (!cwd.ok())
      return tool_failure("Error: " + cwd.error);
    if (ctx.restrict_to_workspace && !path_within(cwd.path, root.path))
      return tool_failure(
        "Error: working_dir is outside the configured workspace");
  }
  struct stat st;
  if (::stat(cwd.path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return tool_failure(
      "Error: working_dir does not exist or is not a directory: " + cwd.path);
  const char* path_var = std::getenv("PATH");
  auto program = find_on_path(entry, path_var ? path_var : "/usr/bin:/bin");
  if (program.empty())
    return tool_failure("Error: " + (entry.empty() ? name : entry)
                        + " is not available on PATH");
  std::vector<std::string> argv;
  if (args.contains("args") && args["args"].is_array())
    for (auto& a : args["args"])
      argv.push_back(a.is_string() ? a.get<std::string>() : a.dump());
  bool want_json = args.contains("json") && args["json"].is_boolean()
                   && args["json"].get<bool>();
  if (want_json && std::find(argv.begin(), argv.end(), "--json") == argv.end())
    argv.insert(argv.begin(), "--json");
  int timeout = ctx.cli_apps.run_timeout_s;
  if (args.contains("timeout") && args["timeout"].is_number_integer()
      && args["timeout"].get<int64_t>() > 0)
    timeout = static_cast<int>(
      std::min<int64_t>(args["timeout"].get<int64_t>(), cli_max_timeout_s));
  timeout = std::clamp(timeout, 1, cli_max_timeout_s);
  std::string command = entry;
  for (auto& a : argv)
    command += " " + cli_shell_quote(a);

  exec_launch launch;
  launch.cwd = cwd.path;
  if (auto refused = put_in_sandbox(ctx, root.path, launch))
    return *refused;
  auto env_cfg = ctx.exec;
  env_cfg.allowed_env_keys.clear(); // the original passes none to apps
  process_options opts;
  opts.program = program;
  opts.argv = {program};
  opts.argv.insert(opts.argv.end(), argv.begin(), argv.end());
  opts.env = exec_child_env(env_cfg);
  opts.cwd = cwd.path;
  opts.timeout_s = timeout;
  opts.limits = exec_child_limits(ctx.exec, timeout);
  opts.capture_limit = cli_output_max;
  auto before = snapshot_artifacts(cwd.path);
  auto ran = run_stoppable(launch, std::move(opts), ctx);
  if (!ran)
    return tool_failure(
      "Error: CLI app not run: the task was stopped (/stop).");
  auto& r = *ran;
  if (r.cancelled)
    return tool_failure("Error: CLI app stopped (/stop); its processes were "
                        "killed.");
  if (!r.error.empty())
    return tool_failure("Error: " + r.error);
  if (r.timed_out)
    return {"CLI app '" + name + "' timed out after " + std::to_string(timeout)
              + "s",
            false};
  bool images = false;
  auto artifacts = changed_artifact_lines(cwd.path, before, images);
  return {cli_answer(name, command, r, artifacts, images), false};
}

} // namespace

void add_run_cli_app(tool_registry& reg, const settings& cfg) {
  std::string installed;
  for (auto& name : cfg.tools.cli_apps.installed)
    installed += (installed.empty() ? "" : ", ") + name;
  json schema = {
    {"type", "object"},
    {"properties",
     {{"name",
       {{"type", "string"},
        {"description", "The installed CLI app's registry name (gimp, "
                        "obsidian, ...)."}}},
      {"args",
       {{"type", nullable_type("array")},
        {"items",
         {{"type", "string"}, {"description", "One command-line argument."}}},
        {"description", "Arguments for the app's entry point, without the "
                        "entry point itself."}}},
      {"json",
       {{"type", nullable_type("boolean")},
        {"description", "Put --json first, for apps that support it."},
        {"default", false}}},
      {"working_dir",
       {{"type", nullable_type("string")},
        {"description", "Directory to run in (default: the workspace)."}}},
      {"timeout",
       {{"type", nullable_type("integer")},
        {"description", "Seconds this call may take."},
        {"minimum", 1},
        {"maximum", cli_max_timeout_s}}}}},
    {"required", {"name"}},
  };
  reg.add({"run_cli_app",
           "Run a CLI app the user installed in Settings or attached as "
           "@app. Not for ordinary command-line programs such as git, gh, "
           "python, npm or brew (use exec); names that are not installed are "
           "refused. The app is started with its arguments directly, never "
           "through a shell."
             + (installed.empty()
                  ? std::string{" No Settings CLI Apps are currently "
                                "installed."}
                  : " Installed Settings CLI Apps: " + installed + "."),
           {}, false, false},
          schema,
          run_cli_app_tool);
}

} // namespace nb

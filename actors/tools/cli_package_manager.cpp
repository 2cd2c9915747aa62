#include "actors/tools/cli_package_manager.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "actors/common/log.hpp"
#include "actors/common/strings.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/exec_process.hpp"
#include "actors/tools/text.hpp"

namespace nb {

namespace {

namespace fs = std::filesystem;

constexpr size_t manager_output_max = 12000; // the original's _truncate
constexpr int npm_root_timeout_s = 30;       // the original's bound

std::string manager_command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (auto& a : argv)
    line += (line.empty() ? "" : " ") + a;
  return line;
}

/// One run of a package manager (`program` already resolved).
process_result run_manager_child(const std::string& program,
                                 const std::vector<std::string>& argv,
                                 int timeout_s) {
  process_options opts;
  opts.program = program;
  opts.argv = argv;
  opts.env = exec_child_env(exec_settings{}); // no key of ours
  opts.cwd = "/";
  if (const char* home = std::getenv("HOME"); home && *home)
    opts.cwd = home;
  opts.timeout_s = timeout_s;
  opts.capture_limit = manager_output_max;
  return run_process(opts);
}

/// Why a finished run failed, or nullopt when it did not.
std::optional<cli_install_refusal>
manager_failure(const process_result& r, const std::string& line,
                int timeout_s, const std::string& failed) {
  if (!r.error.empty())
    return cli_install_refusal{r.error, 500};
  if (r.timed_out)
    return cli_install_refusal{"Command '" + line + "' timed out after "
                                 + std::to_string(timeout_s) + " seconds",
                               500};
  if (r.exit_code == 0)
    return std::nullopt;
  // As the original: stderr, else stdout, else a word.
  auto text = r.err.total ? r.err.head + r.err.tail
                          : (r.out.total ? r.out.head + r.out.tail : failed);
  if (text.size() > manager_output_max)
    text = text.substr(0, manager_output_max) + "\n\n... truncated "
           + std::to_string(text.size() - manager_output_max)
           + " characters ...";
  return cli_install_refusal{sanitize_utf8(text), 500};
}

struct manager_run {
  process_result result;
  std::optional<cli_install_refusal> failure;
};

manager_run run_manager_logged(const std::vector<std::string>& argv,
                               int timeout_s, const std::string& failed) {
  auto line = manager_command_line(argv);
  auto program = cli_which(argv[0]);
  if (program.empty())
    return {{},
            cli_install_refusal{argv[0] + " is not available on PATH", 500}};
  log::get("tools")->info("CLI Apps: running {}", line);
  auto r = run_manager_child(program, argv, timeout_s);
  log::get("tools")->info("CLI Apps: command exited with code {}: {}",
                          r.exit_code, line);
  auto failure = manager_failure(r, line, timeout_s, failed);
  return {std::move(r), std::move(failure)};
}

bool stale_npm_failure(const process_result& r) {
  auto output = r.err.head + r.err.tail + "\n" + r.out.head + r.out.tail;
  return output.find("ENOTEMPTY") != std::string::npos
         && output.find("rename") != std::string::npos;
}

/// Whether `target` (not followed if a link) lies inside `root`.
bool npm_path_within(const fs::path& target, const fs::path& root) {
  auto rel = target.lexically_normal().lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

/// Removes the stale folders npm left for `package` below its global root:
/// whether any was removed.
bool remove_stale_npm_folders(const std::string& package, int timeout_s) {
  static const std::regex safe_package{"^[a-z0-9._-]+$", std::regex::icase};
  auto npm = cli_which("npm");
  if (npm.empty() || package.empty()
      || !std::regex_match(package, safe_package))
    return false;
  auto r = run_manager_child(npm, {npm, "root", "-g"},
                             std::min(timeout_s, npm_root_timeout_s));
  if (!r.error.empty() || r.timed_out || r.exit_code != 0)
    return false;
  std::error_code ec;
  auto root = fs::canonical(trim_space(r.out.head + r.out.tail), ec);
  if (ec)
    return false;
  std::vector<fs::path> targets{root / package};
  for (auto it = fs::directory_iterator(root, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.rfind("." + package + "-", 0) == 0)
      targets.push_back(it->path());
  }
  bool removed = false;
  for (auto& target : targets) {
    std::error_code e;
    if (!npm_path_within(target, root) || fs::is_symlink(target, e)
        || !fs::is_directory(target, e))
      continue;
    if (fs::remove_all(target, e) != static_cast<std::uintmax_t>(-1) && !e) {
      log::get("tools")->info("CLI Apps: removed npm's stale {}",
                              target.string());
      removed = true;
    }
  }
  return removed;
}

} // namespace

std::optional<cli_install_refusal>
run_cli_package_manager(const std::vector<std::string>& argv, int timeout_s,
                        const std::string& failed) {
  return run_manager_logged(argv, timeout_s, failed).failure;
}

std::optional<cli_install_refusal>
install_with_package_manager(const nlohmann::json& app,
                             const std::vector<std::string>& argv,
                             int timeout_s) {
  auto first = run_manager_logged(argv, timeout_s, "install failed");
  if (!first.failure || cli_install_strategy(app) != "npm"
      || !stale_npm_failure(first.result)
      || !remove_stale_npm_folders(trim_space(cli_field(app, "npm_package")),
                                   timeout_s))
    return first.failure;
  return run_cli_package_manager(argv, timeout_s, "install failed");
}

} // namespace nb

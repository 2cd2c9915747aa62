// The CLI apps' actions from the WebUI (install, update, uninstall, test),
// as the original's CliAppManager does them; the listing is
// cli_apps_listing.cpp's, the package manager cli_package_manager.cpp's.
#include "actors/tools/cli_install.hpp"

#include <algorithm>
#include <optional>
#include <variant>
#include <vector>

#include <unistd.h>

#include "actors/common/clock.hpp"
#include "actors/common/strings.hpp"
#include "actors/tools/cli_app_skill.hpp"
#include "actors/tools/cli_apps.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/cli_install_argv.hpp"
#include "actors/tools/cli_package_manager.hpp"
#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/exec_process.hpp"
#include "actors/tools/text.hpp"

namespace nb {

namespace {

using nlohmann::json;

json installed_entry_for(const json& app) {
  auto entry_point = cli_field(app, "entry_point");
  auto version = cli_field(app, "version");
  auto source = cli_field(app, "_source");
  json entry = {{"version", version.empty() ? "unknown" : version},
                {"entry_point", entry_point},
                {"source", source.empty() ? "harness" : source},
                {"strategy", cli_install_strategy(app)},
                {"installed_at", unix_ms() / 1000}};
  for (auto field : {"display_name", "category", "description", "requires",
                     "logo_url", "brand_color"})
    if (app.contains(field) && !app[field].is_null() && app[field] != "")
      entry[field] = app[field];
  if (!entry_point.empty())
    if (auto resolved = cli_which(entry_point); !resolved.empty())
      entry["entry_point_path"] = resolved;
  return entry;
}

std::optional<cli_install_refusal> record_installed(const cli_apps_home& home,
                                                const json& app) {
  auto installed = installed_cli_record(home.config_dir);
  auto name = cli_field(app, "name");
  if (auto old = installed_cli_key(installed, name); !old.empty())
    installed.erase(old);
  installed[name] = installed_entry_for(app);
  if (auto e = save_installed_cli_record(home.config_dir, installed);
      !e.empty())
    return cli_install_refusal{"cannot record the install: " + e, 500};
  if (auto e = install_cli_app_skill(home.workspace, home.config_dir, app);
      !e.empty())
    return cli_install_refusal{"cannot install the app's skill: " + e, 500};
  return std::nullopt;
}

json with_action(const cli_apps_home& home, json last_action) {
  auto out = cli_apps_listing(home, false);
  out["last_action"] = std::move(last_action);
  return out;
}

cli_app_outcome refused(const cli_install_refusal& r) {
  return {r.status, r.message, json::object()};
}

cli_app_outcome install(const cli_apps_home& home, const json& app,
                        bool update) {
  auto display = cli_display_name(app);
  auto strategy = cli_install_strategy(app);
  auto entry_point = cli_field(app, "entry_point");
  if (update) {
    if (installed_cli_key(installed_cli_record(home.config_dir),
                      cli_field(app, "name"))
          .empty())
      return {400, "CLI app is not installed", json::object()};
  } else {
    if (!cli_install_supported(app))
      return {400, "this CLI app uses an unsupported install strategy",
              json::object()};
    if (!entry_point.empty() && !cli_which(entry_point).empty()) {
      if (auto e = record_installed(home, app))
        return refused(*e);
      return {200, "",
              with_action(home, {{"ok", true},
                                 {"message", "CLI for " + display
                                               + " is already available."},
                                 {"installed", true},
                                 {"verification",
                                  {"entry_point_available", "state_recorded",
                                   "managed_paths_present"}}})};
    }
  }
  if (strategy == "bundled") {
    auto detect = cli_field(app, "detect_cmd");
    if (detect.empty())
      detect = entry_point;
    auto words = cli_shlex_split(detect);
    bool found = words && !words->empty() && !cli_which(words->front()).empty();
    if (found || update) {
      if (auto e = record_installed(home, app))
        return refused(*e);
      return {200, "",
              with_action(home, {{"ok", true},
                                 {"message", (update ? "Checked " : "CLI for ")
                                               + display
                                               + (update ? "." : " is available.")},
                                 {"installed", true},
                                 {"verification",
                                  update ? json{"state_recorded"}
                                         : json{"entry_point_available",
                                                "state_recorded"}}})};
    }
    auto note = cli_field(app, "install_notes");
    return {400,
            note.empty() ? display + " is bundled with its parent app." : note,
            json::object()};
  }
  auto argv = cli_manager_argv(app, update ? "update" : "install");
  if (auto* r = std::get_if<cli_install_refusal>(&argv))
    return refused(*r);
  auto& words = std::get<std::vector<std::string>>(argv);
  auto failed = update ? run_cli_package_manager(words,
                                                 home.limits.install_timeout_s,
                                                 "update failed")
                       : install_with_package_manager(
                           app, words, home.limits.install_timeout_s);
  if (failed)
    return refused(*failed);
  if (auto e = record_installed(home, app))
    return refused(*e);
  return {200, "",
          with_action(home, {{"ok", true},
                             {"message", (update ? "Updated CLI for "
                                                 : "Installed CLI for ")
                                           + display + "."},
                             {"installed", true},
                             {"verification",
                              {"package_manager_ok", "state_recorded",
                               "managed_paths_present"}}})};
}

cli_app_outcome uninstall(const cli_apps_home& home, const json& app) {
  auto name = cli_field(app, "name");
  auto display = cli_display_name(app);
  auto installed = installed_cli_record(home.config_dir);
  auto key = installed_cli_key(installed, name);
  if (key.empty())
    return {400, "CLI app is not installed", json::object()};
  json entry = installed[key].is_object() ? installed[key] : json::object();
  auto strategy = cli_install_strategy(app);
  auto entry_point = trim_space(cli_field(app, "entry_point"));
  auto managed = trim_space(cli_field(entry, "entry_point_path"));
  bool still_available = false;
  if (strategy != "bundled") {
    auto argv = cli_manager_argv(app, "uninstall", entry);
    if (auto* r = std::get_if<cli_install_refusal>(&argv))
      return refused(*r);
    if (auto failed = run_cli_package_manager(
          std::get<std::vector<std::string>>(argv),
          home.limits.install_timeout_s, "uninstall failed"))
      return refused(*failed);
    bool still_managed = !managed.empty() && ::access(managed.c_str(), F_OK) == 0;
    still_available = !entry_point.empty() && !cli_which(entry_point).empty();
    if (still_managed || (managed.empty() && still_available)) {
      auto reason = still_managed
                      ? "the recorded entry point at " + managed
                          + " still exists"
                      : entry_point + " is still available on PATH";
      return {200, "",
              with_action(home, {{"ok", false},
                                 {"message", "Uninstall for " + display
                                               + " completed, but " + reason
                                               + ", so nanobot kept it "
                                                 "installed."},
                                 {"removed", false},
                                 {"still_available", true},
                                 {"verification_failed",
                                  {"entry_point_absent"}}})};
    }
  } else {
    still_available = !entry_point.empty() && !cli_which(entry_point).empty();
  }
  installed.erase(key);
  if (auto e = save_installed_cli_record(home.config_dir, installed);
      !e.empty())
    return {500, "cannot record the uninstall: " + e, json::object()};
  remove_cli_app_skill(home.workspace, name);
  std::string message =
    strategy == "bundled" && still_available
      ? "Removed " + display + " from nanobot. " + entry_point
          + " is still available because it is managed outside nanobot."
    : still_available ? "Uninstalled CLI for " + display + ", but another "
                          + entry_point + " is still available on PATH."
                      : "Uninstalled CLI for " + display + ".";
  return {200, "",
          with_action(home,
                      {{"ok", true},
                       {"message", message},
                       {"removed", true},
                       {"still_available", still_available},
                       {"verification",
                        still_available
                          ? json{"state_absent", "managed_paths_absent"}
                          : json{"entry_point_absent", "state_absent",
                                 "managed_paths_absent"}}})};
}

cli_app_outcome self_test(const cli_apps_home& home, const json& app,
                          const std::string& name) {
  auto entry = cli_field(app, "entry_point");
  auto resolved = entry.empty() ? std::string{} : cli_which(entry);
  if (resolved.empty())
    return {400, (entry.empty() ? name : entry) + " is not available on PATH",
            json::object()};
  process_options opts;
  opts.program = resolved;
  opts.argv = {resolved, "--help"};
  opts.env = exec_child_env(exec_settings{});
  opts.cwd = home.workspace.empty() ? "/" : home.workspace;
  opts.timeout_s = std::min(home.limits.run_timeout_s, 30);
  opts.capture_limit = 3000;
  auto r = run_process(opts);
  if (r.timed_out)
    return {500,
            "Command '" + resolved + " --help' timed out after "
              + std::to_string(opts.timeout_s) + " seconds",
            json::object()};
  auto output = trim_space(r.out.total ? r.out.head + r.out.tail
                                       : r.err.head + r.err.tail);
  if (output.size() > 3000)
    output = output.substr(0, 3000) + "\n\n... truncated "
             + std::to_string(output.size() - 3000) + " characters ...";
  return {200, "",
          with_action(home, {{"ok", r.exit_code == 0},
                             {"message", entry + " --help exited "
                                           + std::to_string(r.exit_code)},
                             {"output", sanitize_utf8(output)}})};
}

} // namespace

cli_app_outcome cli_app_action(const cli_apps_home& home,
                               const std::string& action,
                               const std::string& name) {
  if (trim_space(name).empty())
    return {400, "missing CLI app name", json::object()};
  if (action != "install" && action != "update" && action != "uninstall"
      && action != "test")
    return {404, "unknown CLI app action '" + action + "'", json::object()};
  auto catalog = load_cli_catalog(home.config_dir, home.limits.catalog_ttl_s,
                                  action == "update" ? catalog_mode::refetch
                                                     : catalog_mode::fresh);
  if (!catalog.error.empty())
    return {500, "the CLI apps catalog is not available: " + catalog.error,
            json::object()};
  auto* app = find_cli_app(catalog, trim_space(name));
  if (!app)
    return {404, "CLI app '" + trim_space(name) + "' not found",
            json::object()};
  if (action == "install" || action == "update")
    return install(home, *app, action == "update");
  if (action == "uninstall")
    return uninstall(home, *app);
  return self_test(home, *app, name);
}

} // namespace nb

#include "actors/tools/cli_install.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <variant>
#include <vector>

#include <unistd.h>

#include "actors/common/clock.hpp"
#include "actors/common/log.hpp"
#include "actors/common/strings.hpp"
#include "actors/tools/cli_app_skill.hpp"
#include "actors/tools/cli_apps.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/cli_install_argv.hpp"
#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/exec_process.hpp"
#include "actors/tools/text.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr size_t install_output_max = 12000; // the original's _truncate

std::string display_name_of(const json& app) {
  auto d = cli_field(app, "display_name");
  return d.empty() ? cli_field(app, "name") : d;
}

/// Runs a package manager: nullopt on success, else why (its output, or the
/// time limit), as a 500.
std::optional<cli_install_refusal> run_manager(const std::vector<std::string>& argv,
                                           int timeout_s,
                                           const std::string& failed) {
  std::string line;
  for (auto& a : argv)
    line += (line.empty() ? "" : " ") + a;
  auto program = cli_which(argv[0]);
  if (program.empty())
    return cli_install_refusal{argv[0] + " is not available on PATH", 500};
  log::get("tools")->info("CLI Apps: running {}", line);
  process_options opts;
  opts.program = program;
  opts.argv = argv;
  opts.env = exec_child_env(exec_settings{}); // no key of ours
  opts.cwd = "/";
  if (const char* home = std::getenv("HOME"); home && *home)
    opts.cwd = home;
  opts.timeout_s = timeout_s;
  opts.capture_limit = install_output_max;
  auto r = run_process(opts);
  log::get("tools")->info("CLI Apps: command exited with code {}: {}",
                          r.exit_code, line);
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
  if (text.size() > install_output_max)
    text = text.substr(0, install_output_max) + "\n\n... truncated "
           + std::to_string(text.size() - install_output_max)
           + " characters ...";
  return cli_install_refusal{sanitize_utf8(text), 500};
}

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

/// installed.json's key for `name` (any case), or "".
std::string installed_key(const json& installed, const std::string& name) {
  auto wanted = ascii_lower(name);
  for (auto& [key, entry] : installed.items())
    if (ascii_lower(key) == wanted)
      return key;
  return {};
}

std::optional<cli_install_refusal> record_installed(const cli_apps_home& home,
                                                const json& app) {
  auto installed = installed_cli_record(home.config_dir);
  auto name = cli_field(app, "name");
  if (auto old = installed_key(installed, name); !old.empty())
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

json app_row(const cli_apps_home& home, const json& app,
             const json& installed) {
  auto name = cli_field(app, "name");
  auto entry_point = cli_field(app, "entry_point");
  bool supported = cli_install_supported(app);
  bool is_installed = !installed_key(installed, name).empty();
  bool available = !entry_point.empty() && !cli_which(entry_point).empty();
  std::string status = is_installed && available ? "installed"
                       : is_installed            ? "missing"
                       : !supported              ? "unsupported"
                       : available               ? "available"
                                                 : "not_installed";
  auto category = cli_field(app, "category");
  auto source = cli_field(app, "_source");
  return {{"name", name},
          {"display_name", display_name_of(app)},
          {"category", category.empty() ? "uncategorized" : category},
          {"description", cli_field(app, "description")},
          {"requires", cli_field(app, "requires")},
          {"source", source.empty() ? "harness" : source},
          {"entry_point", entry_point},
          {"install_supported", supported},
          {"installed", is_installed},
          {"available", available},
          {"status", status},
          {"skill_installed", cli_app_skill_installed(home.workspace, name)}};
}

json rows_payload(const cli_apps_home& home, const std::vector<json>& apps,
                  const std::string& updated) {
  auto installed = installed_cli_record(home.config_dir);
  json rows = json::array();
  for (auto& app : apps)
    rows.push_back(app_row(home, app, installed));
  std::sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
    auto ka = std::make_pair(a["category"].get<std::string>(),
                             ascii_lower(a["display_name"].get<std::string>()));
    auto kb = std::make_pair(b["category"].get<std::string>(),
                             ascii_lower(b["display_name"].get<std::string>()));
    return ka < kb;
  });
  size_t count = 0;
  for (auto& r : rows)
    count += r["installed"].get<bool>() ? 1 : 0;
  return {{"apps", rows},
          {"installed_count", count},
          {"catalog_updated_at",
           updated.empty() ? json(nullptr) : json(updated)}};
}

/// The installed apps alone, as recorded (the catalog's copy where cached).
json installed_payload(const cli_apps_home& home) {
  auto installed = installed_cli_record(home.config_dir);
  auto cached = load_cli_catalog(home.config_dir, home.limits.catalog_ttl_s,
                                 catalog_mode::cached);
  std::vector<json> apps;
  for (auto& [name, raw] : installed.items()) {
    json entry = raw.is_object() ? raw : json::object();
    json app = {{"name", name}};
    auto* known = find_cli_app(cached, name);
    for (auto field : {"display_name", "category", "description", "requires"}) {
      auto v = known ? cli_field(*known, field) : std::string{};
      app[field] = v.empty() ? cli_field(entry, field) : v;
    }
    if (cli_field(app, "category").empty())
      app["category"] = "installed";
    auto source = cli_field(entry, "source");
    app["_source"] = source.empty() ? "local" : source;
    app["entry_point"] = cli_field(entry, "entry_point");
    auto strategy = cli_field(entry, "strategy");
    app["package_manager"] = strategy.empty() ? "bundled" : strategy;
    apps.push_back(std::move(app));
  }
  auto out = rows_payload(home, apps, "");
  out["installed_count"] = out["apps"].size();
  return out;
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
  auto display = display_name_of(app);
  auto strategy = cli_install_strategy(app);
  auto entry_point = cli_field(app, "entry_point");
  if (update) {
    if (installed_key(installed_cli_record(home.config_dir),
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
  if (auto failed = run_manager(std::get<std::vector<std::string>>(argv),
                                home.limits.install_timeout_s,
                                update ? "update failed" : "install failed"))
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
  auto display = display_name_of(app);
  auto installed = installed_cli_record(home.config_dir);
  auto key = installed_key(installed, name);
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
    if (auto failed = run_manager(std::get<std::vector<std::string>>(argv),
                                  home.limits.install_timeout_s,
                                  "uninstall failed"))
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

json cli_apps_listing(const cli_apps_home& home, bool fetch) {
  auto catalog = load_cli_catalog(home.config_dir, home.limits.catalog_ttl_s,
                                  fetch ? catalog_mode::fresh
                                        : catalog_mode::cached);
  if (catalog.apps.empty()) {
    auto installed = installed_payload(home);
    if (!installed["apps"].empty() || !catalog.error.empty())
      return installed;
  }
  return rows_payload(home, catalog.apps, catalog.updated);
}

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

// The CLI apps' listing for the WebUI (cli_apps_listing of cli_install.hpp):
// the catalog's rows with each app's state, or the installed apps alone
// when there is no catalog, as the original's payload and installed_payload.
#include <algorithm>
#include <vector>

#include "actors/common/strings.hpp"
#include "actors/tools/cli_app_skill.hpp"
#include "actors/tools/cli_apps.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/cli_install.hpp"
#include "actors/tools/cli_install_argv.hpp"

namespace nb {

namespace {

using nlohmann::json;

json app_row(const cli_apps_home& home, const json& app,
             const json& installed) {
  auto name = cli_field(app, "name");
  auto entry_point = cli_field(app, "entry_point");
  bool supported = cli_install_supported(app);
  bool is_installed = !installed_cli_key(installed, name).empty();
  bool available = !entry_point.empty() && !cli_which(entry_point).empty();
  std::string status = is_installed && available ? "installed"
                       : is_installed            ? "missing"
                       : !supported              ? "unsupported"
                       : available               ? "available"
                                                 : "not_installed";
  auto category = cli_field(app, "category");
  auto source = cli_field(app, "_source");
  return {{"name", name},
          {"display_name", cli_display_name(app)},
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

/// The catalog's rows by category then display name; installed.json's
/// keep their order (by name), as the original's installed_payload.
enum class listing_order { by_category, as_given };

json rows_payload(const cli_apps_home& home, const std::vector<json>& apps,
                  const std::string& updated, listing_order order) {
  auto installed = installed_cli_record(home.config_dir);
  json rows = json::array();
  for (auto& app : apps)
    rows.push_back(app_row(home, app, installed));
  if (order == listing_order::by_category)
    std::sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
      auto ka =
        std::make_pair(a["category"].get<std::string>(),
                       ascii_lower(a["display_name"].get<std::string>()));
      auto kb =
        std::make_pair(b["category"].get<std::string>(),
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

} // namespace

json cli_apps_installed(const cli_apps_home& home) {
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
  auto out = rows_payload(home, apps, "", listing_order::as_given);
  out["installed_count"] = out["apps"].size();
  return out;
}

json cli_apps_listing(const cli_apps_home& home, bool fetch) {
  auto catalog = load_cli_catalog(home.config_dir, home.limits.catalog_ttl_s,
                                  fetch ? catalog_mode::fresh
                                        : catalog_mode::cached);
  if (catalog.apps.empty()) {
    auto installed = cli_apps_installed(home);
    if (!installed["apps"].empty() || !catalog.error.empty())
      return installed;
  }
  return rows_payload(home, catalog.apps, catalog.updated,
                      listing_order::by_category);
}

} // namespace nb

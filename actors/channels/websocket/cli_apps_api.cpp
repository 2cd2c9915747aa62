#include "actors/channels/websocket/cli_apps_api.hpp"

#include <nlohmann/json.hpp>

#include "actors/channels/websocket/api_util.hpp"
#include "actors/common/log.hpp"
#include "actors/common/strings.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/cli_install.hpp"
#include "config/load.hpp"

namespace nb::ws {

std::optional<api_reply> cli_apps_api(caf::actor_system& sys,
                                      const cli_catalog_refresher& refresher,
                                      const std::string& config_path,
                                      const api_call& call) {
  static constexpr std::string_view route = "settings/cli-apps";
  if (call.name.rfind(route, 0) != 0
      || (call.name.size() > route.size() && call.name[route.size()] != '/'))
    return std::nullopt;
  auto text = read_file_text(config_path);
  auto loaded = parse_settings(text, config_path);
  if (auto* e = std::get_if<config_error>(&loaded))
    return problem(409, e->message());
  const auto& cfg = std::get<loaded_settings>(loaded).value;
  cli_apps_home home{cfg.config_dir(), cfg.workspace_path(),
                     cfg.tools.cli_apps};
  if (call.name.size() == route.size()) {
    if (call.method != "GET")
      return problem(405, "GET only");
    auto only = call.query.find("installed_only");
    auto flag =
      only == call.query.end() ? std::string{} : ascii_lower(only->second);
    if (flag == "1" || flag == "true" || flag == "yes")
      return answer(200, cli_apps_installed(home));
    // At once from the caches; a stale catalog is fetched behind the
    // answer, and the WebUI asks again while it is pending.
    auto listing = cli_apps_listing(home, false);
    bool pending = false;
    if (!cli_catalog_fresh(home.config_dir, home.limits.catalog_ttl_s, true))
      pending = start_cli_catalog_refresh(sys, refresher, home.config_dir,
                                          home.limits.catalog_ttl_s);
    listing["catalog_refresh_pending"] = pending;
    return answer(200, listing);
  }
  if (call.method != "POST")
    return problem(405, "POST only");
  auto action = call.name.substr(route.size() + 1);
  std::string name;
  if (auto q = call.query.find("name"); q != call.query.end())
    name = q->second;
  if (name.empty()) {
    auto body = nlohmann::json::parse(call.body, nullptr, false);
    if (body.is_object() && body.contains("name") && body["name"].is_string())
      name = body["name"].get<std::string>();
  }
  auto outcome = cli_app_action(home, action, name);
  if (!outcome.error.empty()) {
    if (outcome.status >= 500)
      log::get("webui")->warn("CLI Apps action '{}' failed: {}", action,
                              outcome.error);
    return problem(outcome.status, outcome.error);
  }
  if (action != "test")
    if (auto why = apply_tools(sys, text, config_path); !why.empty())
      outcome.body["applied"] = "the tools take it at the next start: " + why;
  return answer(200, outcome.body);
}

} // namespace nb::ws

#include "actors/channels/websocket/ws_api_routes.hpp"

#include <optional>

#include <caf/scoped_actor.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/status_json.hpp"
#include "actors/channels/websocket/automations_api.hpp"
#include "actors/channels/websocket/cli_apps_api.hpp"
#include "actors/channels/websocket/sessions_api.hpp"
#include "actors/channels/websocket/settings_api.hpp"
#include "actors/channels/websocket/setup_api.hpp"
#include "actors/channels/websocket/skills_api.hpp"

namespace nb::ws {

namespace {

std::string ask_channel_status(caf::actor_system& sys,
                         const channel_manager_actor& manager) {
  std::string out;
  caf::scoped_actor self{sys};
  self->request(manager, std::chrono::seconds(5), channel_status_atom::value)
    .receive(
      [&](std::vector<channel_status>& all) { out = channels_json(all); },
      [&](caf::error& err) {
        out = nlohmann::json{{"channels", nlohmann::json::array()},
                             {"error", sys.render(err)}}
                .dump();
      });
  return out;
}

/// The gateway's /stats, read over loopback HTTP: the figures live in the
/// stats actor behind the gateway port, and this keeps one source of truth.
std::optional<std::string> gateway_stats_json(const channel_config& c) {
  httplib::Client cli{c.stats_host, c.stats_port};
  cli.set_connection_timeout(std::chrono::seconds(2));
  cli.set_read_timeout(std::chrono::seconds(5));
  auto res = cli.Get("/stats");
  if (!res || res->status != 200)
    return nlohmann::json{{"error", "the gateway's /stats is not reachable at "
                                      + c.stats_host + ":"
                                      + std::to_string(c.stats_port)}}
      .dump();
  return res->body;
}

} // namespace

api_function make_api_function(caf::actor_system& sys,
                               const channel_config& c,
                               const std::string& name,
                               const std::string& config_path,
                               control_agents agents,
                               channel_manager_actor manager) {
  settings_context settings_ctx{config_path, name, manager};
  auto refresher = spawn_cli_catalog_refresher(sys);
  return [&sys, manager, c, config_path, agents = std::move(agents),
          settings_ctx, refresher](const api_call& call) -> api_reply {
    if (auto setup = setup_api(sys, config_path, call))
      return *setup;
    if (auto apps = cli_apps_api(sys, refresher, config_path, call))
      return *apps;
    if (auto edited = settings_api(sys, settings_ctx, call))
      return *edited;
    if (auto r = automations_api(sys, agents, call))
      return *r;
    if (auto r = skills_api(sys, agents, call))
      return *r;
    if (auto sessions = sessions_api(sys, call))
      return *sessions;
    if (call.name != "channels" && call.name != "stats")
      return {404, R"({"detail":"not found"})"};
    if (call.method != "GET")
      return {405, R"({"detail":"GET only"})"};
    if (call.name == "channels")
      return {200, ask_channel_status(sys, manager)};
    return {200, gateway_stats_json(c).value_or("{}")};
  };
}

} // namespace nb::ws

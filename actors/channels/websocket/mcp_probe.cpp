#include "actors/channels/websocket/mcp_probe.hpp"

#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/tools/mcp_server.hpp"

namespace nb::ws {

nlohmann::json probe_mcp_server(caf::actor_system& sys,
                                const std::string& name,
                                const mcp_server_settings& cfg,
                                const std::vector<std::string>& ssrf_whitelist) {
  auto server = sys.spawn<caf::detached>(mcp_server_impl, name, cfg,
                                         ssrf_whitelist, stats_actor{},
                                         std::string{main_agent});
  nlohmann::json out;
  caf::scoped_actor self{sys};
  // Starting a server (npx, a download) may take a while; its own
  // toolTimeout bounds each request it answers.
  auto wait = std::chrono::seconds(cfg.tool_timeout_s + 30);
  self->request(server, wait, list_tools_atom::value)
    .receive(
      [&](std::vector<tool_spec>& specs) {
        auto prefix = "mcp_" + name + "_";
        auto list = nlohmann::json::array();
        for (auto& s : specs) {
          auto shown = s.name.rfind(prefix, 0) == 0
                         ? s.name.substr(prefix.size()) : s.name;
          list.push_back({{"name", shown}, {"description", s.description}});
        }
        out = {{"tools", list}};
      },
      [&](caf::error& err) { out = {{"error", sys.render(err)}}; });
  self->send_exit(server, caf::exit_reason::user_shutdown);
  return out;
}

} // namespace nb::ws

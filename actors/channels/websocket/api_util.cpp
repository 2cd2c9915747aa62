#include "actors/channels/websocket/api_util.hpp"

#include <chrono>
#include <fstream>
#include <sstream>

#include <caf/actor_cast.hpp>
#include <caf/actor_registry.hpp>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/tools/side_files.hpp"

namespace nb::ws {

std::mutex& config_edit_mutex() {
  static std::mutex m;
  return m;
}

supervisor_admin_actor find_supervisor(caf::actor_system& sys) {
  return caf::actor_cast<supervisor_admin_actor>(
    sys.registry().get(supervisor_atom::value));
}

std::string apply_provider(caf::actor_system& sys, const std::string& text,
                           const std::string& config_path) {
  auto sup = find_supervisor(sys);
  if (!sup)
    return "this process runs no gateway supervisor to apply the provider to";
  std::string failed;
  caf::scoped_actor self{sys};
  self->request(sup, std::chrono::seconds(15),
                provider_config{text, config_path})
    .receive([](caf::ok_atom) {},
             [&](caf::error& err) { failed = sys.render(err); });
  return failed;
}

std::string apply_tools(caf::actor_system& sys, const std::string& text,
                        const std::string& config_path) {
  auto sup = find_supervisor(sys);
  if (!sup)
    return "this process runs no gateway supervisor to apply the tools to";
  std::string failed;
  tools_config change;
  change.config_json = text;
  change.config_path = config_path;
  read_tool_side_files(change); // here, on the WebUI's worker thread
  caf::scoped_actor self{sys};
  self->request(sup, std::chrono::seconds(15), std::move(change))
    .receive([](caf::ok_atom) {},
             [&](caf::error& err) { failed = sys.render(err); });
  return failed;
}

nlohmann::json live_provider_status(caf::actor_system& sys) {
  auto sup = find_supervisor(sys);
  if (!sup)
    return {{"ready", false},
            {"problem", "this process runs no gateway supervisor"}};
  nlohmann::json out;
  caf::scoped_actor self{sys};
  self->request(sup, std::chrono::seconds(10), provider_status_atom::value)
    .receive(
      [&](std::string& text) {
        out = nlohmann::json::parse(text, nullptr, false);
      },
      [&](caf::error& err) {
        out = {{"ready", false}, {"problem", sys.render(err)}};
      });
  return out.is_object() ? out : nlohmann::json{{"ready", false}};
}

} // namespace nb::ws

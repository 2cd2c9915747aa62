// The WebUI's /api/* routes in the order they are tried (setup, CLI apps,
// settings, automations, skills, sessions, channels, stats), as the one
// function the API runner calls for each request. Blocking: the runner's
// thread for that call, never the scheduler's.
#pragma once

#include <string>

#include <caf/fwd.hpp>

#include "actors/channels/websocket/control_ask.hpp"
#include "actors/channels/websocket/ws_api_runner.hpp"
#include "actors/channels/websocket/ws_config.hpp"
#include "messages/interfaces.hpp"

namespace nb::ws {

/// The routes of channel `name` (channels.<name>), its config file at
/// `config_path`.
api_function make_api_function(caf::actor_system& sys,
                               const channel_config& c,
                               const std::string& name,
                               const std::string& config_path,
                               control_agents agents,
                               channel_manager_actor manager);

} // namespace nb::ws

// The NapCat (OneBot v11) channel adapter for QQ: one forward WebSocket
// carries events in and actions out.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::napcat {

/// The factory registered for "napcat" (see telegram::make_channel).
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::napcat

// The Mochat channel adapter: Socket.IO (Engine.IO WebSocket transport) in,
// the claw REST API out.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::mochat {

/// The factory registered for "mochat" (see telegram::make_channel).
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::mochat

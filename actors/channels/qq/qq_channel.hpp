// The official QQ bot channel adapter: gateway WebSocket in, OpenAPI
// message posts out.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::qq {

/// The factory registered for "qq" (see telegram::make_channel).
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::qq

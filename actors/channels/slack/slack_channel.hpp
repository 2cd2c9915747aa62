// The Slack channel adapter: Socket Mode in, chat.postMessage out.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::slack {

/// The factory registered for "slack" (see telegram::make_channel).
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::slack

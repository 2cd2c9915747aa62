// The Telegram channel adapter (Bot API): long polling in, HTML out.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::telegram {

/// The factory registered for "telegram": reads channels.<name>, starts
/// polling and answers the manager's deliveries. A bad config gives an
/// adapter whose status is "error" with the key path and the reason.
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::telegram

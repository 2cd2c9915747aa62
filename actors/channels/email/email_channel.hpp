// The Email channel adapter: IMAP polling in, SMTP replies out.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::email {

/// The factory registered for "email" (see telegram::make_channel).
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::email

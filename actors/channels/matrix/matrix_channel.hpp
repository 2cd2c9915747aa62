// The Matrix channel adapter: /sync long polling in, room send out.
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::matrix {

/// The factory registered for "matrix" (see telegram::make_channel).
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::matrix

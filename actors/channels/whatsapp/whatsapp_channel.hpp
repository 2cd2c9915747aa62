// The WhatsApp channel adapter: nanobot's Node/Baileys bridge (mode
// "bridge") or the WhatsApp Business Cloud API (mode "cloud").
#pragma once

#include <string>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb::whatsapp {

/// The factory registered for "whatsapp" (see telegram::make_channel).
channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager);

} // namespace nb::whatsapp

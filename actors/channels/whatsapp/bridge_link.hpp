// The WhatsApp inbound side in bridge mode: the connection to nanobot's
// Node/Baileys bridge on its own thread.
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/whatsapp/bridge_outbox.hpp"
#include "actors/channels/whatsapp/whatsapp_config.hpp"

namespace nb::whatsapp {

/// Connects to bridgeUrl, authenticates with the first frame, then hands
/// each `message` on (once per WhatsApp id, its media copied under
/// media_dir within the cap), shows `qr` and `status` in the channel's
/// status, and writes what the sender queues in `outbox`, one command at a
/// time, answered by the bridge's `sent` or `error`. Reconnects with
/// back-off; a refused token (4003) stops it with the key named.
std::unique_ptr<chan::inbound_loop>
start_bridge(whatsapp_config cfg, std::shared_ptr<bridge_outbox> outbox,
             chan::adapter_front_actor front);

} // namespace nb::whatsapp

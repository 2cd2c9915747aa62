// The WhatsApp outbound side: a detached actor that hands each reply to
// the bridge connection (bridge mode) or posts it to the Graph API (cloud).
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/whatsapp/bridge_outbox.hpp"
#include "actors/channels/whatsapp/whatsapp_config.hpp"

namespace nb::whatsapp {

/// Final replies and progress lines go out as text (already split by the
/// manager to 4 096 characters); files named in the metadata's "media"
/// (the message tool's) go out as attachments, the text as the first one's
/// caption. Ok only once the bridge answered `sent` or the Graph API
/// accepted the message; stream deltas are not shown.
chan::sender_actor spawn_sender(caf::actor_system& sys, whatsapp_config cfg,
                                std::shared_ptr<bridge_outbox> outbox);

} // namespace nb::whatsapp

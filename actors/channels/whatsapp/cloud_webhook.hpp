// The WhatsApp inbound side in cloud mode: the webhook Meta calls, on its
// own host and port (webhookHost/webhookPort, behind the user's HTTPS
// proxy), served by its own threads.
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/whatsapp/whatsapp_config.hpp"

namespace nb::whatsapp {

/// GET webhookPath answers Meta's subscription check (hub.mode=subscribe,
/// hub.verify_token = verifyToken: 200 with hub.challenge, else 403).
/// POST webhookPath: a body whose X-Hub-Signature-256 is not the HMAC of
/// appSecret gets 401 and nothing is handed on; otherwise its messages
/// (attachments fetched under media_dir) are handed on and the answer is
/// 200 only once they are in the inbox journal (else 500: Meta sends the
/// POST again); delivery statuses are counted in the channel's status.
std::unique_ptr<chan::inbound_loop>
start_webhook(whatsapp_config cfg, chan::adapter_front_actor front);

} // namespace nb::whatsapp

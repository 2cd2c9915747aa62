// The official QQ bot's inbound side: its gateway WebSocket (the kit's
// op_gateway) on its own thread.
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/qq/qq_config.hpp"

namespace nb::qq {

/// The app access token (POST {tokenBase}/app/getAppAccessToken), the URL
/// from GET {apiBase}/gateway, then Hello / Identify ("QQBot <token>",
/// intents) / heartbeats / Resume with session_id and the last confirmed
/// sequence after a drop (a message's sequence is confirmed only once it
/// is in the inbox journal) / Reconnect / Invalid Session. Attachments are
/// saved under the media folder (size-capped); ackMessage is posted as a
/// reply (msg_seq 1) to each message that went on to an agent. A refused
/// appId/secret or close code 4004/4914/4915 stops it with "error".
std::unique_ptr<chan::inbound_loop> start_gateway(qq_config cfg,
                                                  chan::adapter_front_actor front);

} // namespace nb::qq

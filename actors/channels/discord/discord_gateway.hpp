// The Discord inbound side: the Gateway WebSocket on its own thread.
#pragma once

#include <memory>

#include "actors/channels/discord/discord_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::discord {

/// HELLO -> IDENTIFY (intents) -> READY, heartbeats every
/// heartbeat_interval (a missing ACK counts as a dead connection), RESUME
/// with session_id and the last sequence after a drop (events arrive again
/// from there; ones already seen are skipped), a fresh IDENTIFY when the
/// session is invalid. Fatal close codes (4004 bad token, 4010-4014) stop
/// it with status "error".
std::unique_ptr<chan::inbound_loop>
start_gateway(discord_config cfg, chan::adapter_front_actor front);

} // namespace nb::discord

// The Mochat inbound side: the Socket.IO connection on its own thread.
#pragma once

#include <memory>
#include <string>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/mochat/mochat_config.hpp"

namespace nb::mochat {

/// Connects to the Socket.IO server with auth {token: clawToken}, subscribes
/// the configured sessions (com.claw.im.subscribeSessions with the stored
/// cursors, so the server sends what came in meanwhile) and panels
/// (com.claw.im.subscribePanels), looks "*" lists up over REST
/// (/api/claw/sessions/list, /api/claw/groups/get) every refreshIntervalMs,
/// and hands on the messages of claw.session.events, claw.panel.events and
/// notify:chat.*. An event is acknowledged, and a session's cursor (kept in
/// `cursor_file`) moved, only once its messages are in the inbox journal.
/// A drop or a missed ping reconnects after a back-off; a token the server
/// refuses stops the loop with an error naming channels.<name>.clawToken.
std::unique_ptr<chan::inbound_loop>
start_watch(mochat_config cfg, std::string cursor_file,
            chan::adapter_front_actor front);

} // namespace nb::mochat

// The Mochat inbound side: the Socket.IO connection on its own thread, HTTP
// polling when the socket cannot be used.
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
/// A drop or a missed ping reconnects after a back-off. While the socket
/// cannot be used (between attempts, and for good after maxRetryAttempts)
/// the loop polls over HTTP as the original falls back to: each session's
/// /api/claw/sessions/watch long poll from its cursor, each panel's
/// /api/claw/groups/panels/messages every refreshIntervalMs (messages from
/// before the start are history); once the socket is back the polls end.
/// A token the server refuses stops the loop with an error naming
/// channels.<name>.clawToken.
std::unique_ptr<chan::inbound_loop>
start_watch(mochat_config cfg, std::string cursor_file,
            chan::adapter_front_actor front);

} // namespace nb::mochat

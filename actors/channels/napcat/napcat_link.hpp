// The NapCat inbound side: the OneBot v11 forward WebSocket on its own
// thread. It also carries the sender's actions (see action_line).
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/napcat/action_line.hpp"
#include "actors/channels/napcat/napcat_config.hpp"

namespace nb::napcat {

/// Connects to wsUrl (accessToken as "Authorization: Bearer"), asks
/// get_login_info for the bot's QQ number, then reads events: private and
/// group messages (group ones by groupPolicy and its overrides; images
/// saved under the media folder, size-capped), group_increase notices
/// (welcomeNewMembers), action answers (to `line`). A message is handed to
/// the inbox journal before the next frame is read; one seen before (same
/// message_id, e.g. sent again after a reconnect) is skipped. Reconnects
/// with back-off; a refused token (HTTP 401/403) stops it with "error".
std::unique_ptr<chan::inbound_loop>
start_link(napcat_config cfg, std::shared_ptr<action_line> line,
           chan::adapter_front_actor front);

} // namespace nb::napcat

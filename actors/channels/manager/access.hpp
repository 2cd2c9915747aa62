// Who may talk to the agent on a channel: allowFrom, pairing approvals and
// the group mention policy, as one pure decision.
#pragma once

#include "actors/channels/manager/options.hpp"
#include "actors/channels/manager/pairing.hpp"
#include "messages/chat.hpp"

namespace nb {

enum class access_verdict {
  allow,      ///< hand it to the agent
  deny,       ///< drop with a warning
  pair,       ///< unknown direct-message sender in pairing mode: send a code
  skip_group, ///< a group message the bot was not addressed in: drop quietly
};

/// Reads the inbound metadata keys "_is_group" and "_mentioned".
access_verdict check_access(const channel_options& opts,
                            const pairing_book& book, const inbound_msg& msg);

} // namespace nb

// Chat channels: the adapter and channel-manager interfaces and the status
// every channel reports (shared by the manager, the adapters, the dashboard
// and `nanobot channels status`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/chat.hpp"
#include "messages/inbox.hpp"

namespace nb {

/// One channel's health as its adapter sees it.
struct channel_status {
  std::string name;
  /// connected | connecting | disconnected | error | disabled
  std::string state;
  std::string detail; ///< why (error text, endpoint, ...); may be empty
  int64_t received = 0;
  int64_t sent = 0;
  int64_t failed = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, channel_status& x) {
  return f(caf::meta::type_name("channel_status"), x.name, x.state, x.detail,
           x.received, x.sent, x.failed);
}

using channel_status_atom = caf::atom_constant<caf::atom("chstatus")>;

/// A channel adapter. It delivers ONE outbound message (already split to the
/// platform's limit by the manager) and replies ok once the platform accepted
/// it, or an error; the manager then retries (3 attempts after 1/2/4 s), so an
/// adapter must not retry on its own nor report ok for an unsent message.
using channel_actor
  = caf::typed_actor<caf::replies_to<outbound_msg>::with<caf::ok_atom>,
                     caf::replies_to<channel_status_atom>::with<channel_status>>;

/// The channel manager: the services' outbox (outbound_msg) and the adapters'
/// inbox (inbound_msg: access control, then the router). Inbound metadata
/// keys it reads: "_is_group" (bool), "_mentioned" (bool), "_message_id".
/// `inbox_record` is the same inbound path with a receipt: answered once the
/// message is in the inbox journal (or was refused by access control), so
/// the adapter may acknowledge the platform.
using channel_manager_actor = caf::typed_actor<
  caf::reacts_to<outbound_msg>, caf::reacts_to<inbound_msg>,
  caf::replies_to<inbox_record>::with<inbox_receipt>,
  caf::replies_to<channel_status_atom>::with<std::vector<channel_status>>>;

} // namespace nb

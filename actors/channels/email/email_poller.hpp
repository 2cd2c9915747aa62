// The Email inbound side: IMAP polling of unseen mail on its own thread.
#pragma once

#include <memory>

#include "actors/channels/email/email_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::email {

/// Every pollIntervalSeconds: UID SEARCH UNSEEN, fetch each new message,
/// hand it on (sender = chat = the From address; body cut at
/// maxBodyChars). Automatic mail (Auto-Submitted, bulk/list precedence)
/// and our own address are skipped, so two robots never talk in a loop.
/// With markSeen false the message is flagged unseen again.
std::unique_ptr<chan::inbound_loop>
start_poller(email_config cfg, chan::adapter_front_actor front);

} // namespace nb::email

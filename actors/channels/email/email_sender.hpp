// The Email outbound side: threaded replies over SMTP in a detached actor.
#pragma once

#include "actors/channels/email/email_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::email {

/// Spawns the sender detached. A final reply to an address becomes one
/// plain-text mail from fromAddress with subject "Re: <their subject>" and
/// In-Reply-To/References of the last mail from that address; progress
/// lines and stream pieces are not mailed; autoReplyEnabled false keeps
/// every reply unsent (answered ok, logged).
chan::sender_actor spawn_sender(caf::actor_system& sys, email_config cfg);

} // namespace nb::email

// The Slack outbound side: chat.postMessage in a detached actor.
#pragma once

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/slack/slack_config.hpp"

namespace nb::slack {

/// Spawns the sender detached. Final replies and progress lines go out as
/// mrkdwn, in pieces of at most 3 900 characters, into the thread named by
/// the session key (if any); a 429's Retry-After (up to 20 s) is waited out
/// and the piece tried again; stream deltas are not shown.
chan::sender_actor spawn_sender(caf::actor_system& sys, slack_config cfg);

} // namespace nb::slack

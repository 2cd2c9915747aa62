// Tools: an exclusive lane. One detached worker whose mailbox is the queue,
// so the calls routed to it run strictly one after another.
#pragma once

#include <memory>

#include <caf/scheduled_actor.hpp>

#include "actors/tools/registry.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// Spawns a lane owned by `owner`: it is stopped when `owner` terminates.
tool_executor_actor spawn_tool_lane(caf::scheduled_actor* owner,
                                    std::shared_ptr<const tool_registry> reg,
                                    tool_context base, stats_actor stats);

/// Makes `child` exit (user_shutdown) when `owner` terminates.
template <class Handle>
void stop_with(caf::scheduled_actor* owner, Handle child) {
  owner->attach_functor([child](const caf::error&) {
    caf::anon_send_exit(child, caf::exit_reason::user_shutdown);
  });
}

} // namespace nb

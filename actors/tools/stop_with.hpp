// Tools: children that end with their owner (the pool's workers, the
// front's pool, watch and MCP servers).
#pragma once

#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>

namespace nb {

/// Makes `child` exit (user_shutdown) when `owner` terminates.
template <class Handle>
void stop_with(caf::scheduled_actor* owner, Handle child) {
  owner->attach_functor([child](const caf::error&) {
    caf::anon_send_exit(child, caf::exit_reason::user_shutdown);
  });
}

} // namespace nb

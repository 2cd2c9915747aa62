// Tools: children that end with their owner (the pool's workers, the
// front's pool, watch and MCP servers).
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>
#include <caf/actor_cast.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>

namespace nb {

/// Makes `child` exit (user_shutdown) when `owner` terminates. The hook
/// holds only the child's address: a child that ended before (a retired
/// pool worker) is not kept in memory by its owner's hooks.
template <class Handle>
void stop_with(caf::scheduled_actor* owner, const Handle& child) {
  owner->attach_functor([addr = child.address()](const caf::error&) {
    if (auto alive = caf::actor_cast<caf::actor>(addr))
      caf::anon_send_exit(alive, caf::exit_reason::user_shutdown);
  });
}

} // namespace nb

// Giving freed memory back to the system. When many idle sessions quit
// (10 000 chats after a load peak) their memory is freed inside malloc's
// arenas but stays in the process's RSS; malloc_trim returns it. The
// trimmer is spawned by the router on the first session it retires and
// trims at most once every few seconds, after the retirements settle.
#pragma once

#include <caf/actor.hpp>
#include <caf/behavior.hpp>
#include <caf/event_based_actor.hpp>

namespace nb {

/// The trimmer's behaviour (event-based: malloc_trim does no I/O). Spawn it
/// linked to its owner, so it ends with it.
caf::behavior memory_trimmer(caf::event_based_actor* self);

/// Tells `trimmer` that memory was freed (a session quit): it trims once
/// after a short quiet spell.
void note_freed(const caf::actor& trimmer);

} // namespace nb

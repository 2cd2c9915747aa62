// Giving freed memory back to the system. glibc keeps what a thread freed in
// that thread's arena: when many idle sessions quit (10 000 chats after a
// load peak), or as load moves between CAF's workers and the detached
// workers over hours (the soak: 51.7 MB taken from the system with 12.5 MB
// in use), the process holds several times what it uses. The gateway now
// runs on jemalloc (actors/app/allocator.cpp), which decays free pages on its
// own while it allocates; the trimmer's purge (give_back_free_heap) covers
// the quiet times and glibc builds. One trimmer per router (spawned
// with it; the trim itself runs on a short-lived thread of its own, so it
// never holds a scheduler thread and the idle trimmer holds none): once a
// minute, and a few seconds after sessions retire; it reports what the
// trims gave back as the /stats gauge "heap_returned_kb", and what the
// program has allocated as "heap_in_use_kb" (RSS far above it is the
// allocator's holding, not a leak).
#pragma once

#include <chrono>

#include <caf/actor.hpp>
#include <caf/behavior.hpp>
#include <caf/event_based_actor.hpp>

#include "messages/interfaces.hpp"

namespace nb {

/// The trimmer's behaviour: spawn it linked to its owner, so it ends with
/// it. It trims every `every` and after note_freed().
caf::behavior memory_trimmer(caf::event_based_actor* self, stats_actor stats,
                             std::chrono::seconds every);

/// Tells `trimmer` that memory was freed (a session quit): it trims once
/// after a short quiet spell.
void note_freed(const caf::actor& trimmer);

} // namespace nb

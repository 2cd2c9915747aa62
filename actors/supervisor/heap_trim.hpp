// Gives freed heap back to the system. glibc keeps what a thread freed in
// that thread's arena; a gateway whose load moves between threads (CAF's
// workers, the detached workers of tools and the store) ends up holding
// several times the memory it uses (measured in the soak: 51.7 MB taken
// from the system, 12.5 MB in use). malloc_trim returns the free pages of
// every arena; a detached actor calls it once a minute, off the scheduler's
// threads, and reports what the process gave back.
#pragma once

#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "messages/interfaces.hpp"

namespace nb {

using heap_trim_actor = caf::typed_actor<caf::reacts_to<caf::tick_atom>>;

/// Spawns the trimmer (detached); it reports the gauge "heap_returned_kb"
/// (RSS given back by its trims, in total) to `stats`.
heap_trim_actor spawn_heap_trim(caf::actor_system& sys, stats_actor stats,
                                std::chrono::seconds every
                                = std::chrono::seconds(60));

} // namespace nb

// Where sessions and tools find semantic memory: the memory directory is
// registered in the actor system under memory_atom (see
// actors/memory_index/memory_directory.hpp). Null when it is not running.
#pragma once

#include <caf/actor_cast.hpp>
#include <caf/actor_registry.hpp>
#include <caf/actor_system.hpp>

#include "messages/memory.hpp"

namespace nb {

inline memory_actor find_memory(caf::actor_system& sys) {
  return caf::actor_cast<memory_actor>(sys.registry().get(memory_atom::value));
}

} // namespace nb

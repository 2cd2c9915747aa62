// The actor that owns one workspace's memory index: spawned detached (its
// SQLite and HTTP work never runs on a scheduler thread), one per agent
// workspace, by the memory directory on first use. Vectors are computed in
// batches between requests, so searches never wait for a reindex.
#pragma once

#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/memory_index/index_core.hpp"
#include "messages/interfaces.hpp"
#include "messages/memory.hpp"

namespace nb {

struct memory_index_state {
  memory_index_state() = default;
  static inline const char* name = "memory_index";

  std::unique_ptr<memory::index_core> core;
  memory_directory_actor directory; ///< gets the figures (null: nobody)
  bool stepping = false;            ///< a memory_step_atom is on its way
  int64_t since_report = 0;         ///< searches since the last figures
  actor_meter meter;
};

using memory_index_pointer
  = memory_index_actor::stateful_pointer<memory_index_state>;

/// Spawn with caf::detached.
memory_index_actor::behavior_type
memory_index_impl(memory_index_pointer self, memory::index_options opts,
                  memory_directory_actor directory, stats_actor stats);

} // namespace nb

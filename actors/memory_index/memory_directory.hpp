// The per-process front of semantic memory: maps a workspace (one per
// agent) to its index actor, starting the index on the first request for
// that workspace, so a gateway that never uses memory never opens SQLite.
// Registered in the actor system as memory_atom; sessions and tools find
// it there. Sums the indexes' figures into the stats gauges.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/find_memory.hpp"
#include "actors/common/meter.hpp"
#include "actors/memory_index/embed_client.hpp"
#include "config/memory_config.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"
#include "messages/memory.hpp"

namespace nb {

struct memory_directory_state {
  memory_directory_state() = default;
  static inline const char* name = "memory_directory";

  memory_settings mem;
  memory::embed_choice embed;
  stats_actor stats;
  std::map<std::string, memory_index_actor> indexes;
  std::map<std::string, memory_figures> figures;
  /// When each index last got a request: one unused for `idle_limit` ends
  /// (its thread and its SQLite connection with it); the next request
  /// starts a fresh one.
  std::map<std::string, std::chrono::steady_clock::time_point> last_use;
  std::chrono::milliseconds idle_limit{60'000};
  bool retire_armed = false; ///< a clock entry for that is pending
  actor_meter meter;
};

using memory_directory_pointer
  = memory_directory_actor::stateful_pointer<memory_directory_state>;

memory_directory_actor::behavior_type
memory_directory_impl(memory_directory_pointer self, settings cfg,
                      memory_settings mem, stats_actor stats,
                      std::chrono::milliseconds idle_limit
                      = std::chrono::seconds(60));

/// Spawns the directory and registers it under memory_atom. With
/// embeddings configured, the index of `warm` (a workspace, "" = none)
/// starts at once to compute vectors in the background; every other index
/// starts on first use, and ends after `idle_limit` without a request
/// (unless it still computes vectors).
memory_directory_actor spawn_memory_directory(
  caf::actor_system& sys, const settings& cfg, const memory_settings& mem,
  stats_actor stats, const std::string& warm = "",
  std::chrono::milliseconds idle_limit = std::chrono::seconds(60));

/// Stops the directory (and its indexes) and unregisters it.
void stop_memory_directory(caf::actor_system& sys);

} // namespace nb

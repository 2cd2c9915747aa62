// Semantic memory: what sessions, tools and the command line ask an agent's
// memory index (actors/memory_index), and what it answers. Its own type-ID
// block follows the main one, so adding it recompiles only its users.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>

#include "messages/type_ids.hpp"

namespace nb {

/// A search of one workspace's memory. `recall` marks the automatic recall
/// before a model call: only hits above the score floor, within the
/// character budget, and each one counted as recalled.
struct memory_query {
  std::string workspace; ///< absolute: whose memory (one index per agent)
  std::string query;
  int32_t k = 5;
  std::string category; ///< "" = any; fact, profile or experience
  bool recall = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, memory_query& x) {
  return f(caf::meta::type_name("memory_query"), x.workspace, x.query, x.k,
           x.category, x.recall);
}

/// One ranked snippet and where it came from.
struct memory_hit {
  int64_t id = 0;     ///< the chunk's id (memory_forget takes it)
  std::string text;
  std::string source; ///< "MEMORY.md", "memory/<name>.md", "history.jsonl"
  int32_t line_start = 0;
  int32_t line_end = 0;
  std::string category;
  std::string date;   ///< when the memory was made, "YYYY-MM-DD"
  double score = 0;   ///< 0..~1.5: fused rank × decay × boosts
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, memory_hit& x) {
  return f(caf::meta::type_name("memory_hit"), x.id, x.text, x.source,
           x.line_start, x.line_end, x.category, x.date, x.score);
}

/// The answer to a memory_query. `mode` is "hybrid" or "full-text"; `note`
/// says why it is full text only ("" in hybrid mode).
struct memory_hits {
  std::vector<memory_hit> hits;
  std::string mode;
  std::string note;
  int64_t took_us = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, memory_hits& x) {
  return f(caf::meta::type_name("memory_hits"), x.hits, x.mode, x.note,
           x.took_us);
}

/// memory_save: appends `text` to MEMORY.md (the file stays the truth) and
/// indexes it; answered with a sentence for the model.
struct memory_save_request {
  std::string workspace;
  std::string text;
  std::string category; ///< fact, profile or experience
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, memory_save_request& x) {
  return f(caf::meta::type_name("memory_save_request"), x.workspace, x.text,
           x.category);
}

/// memory_forget: removes chunk `id` from its source file and the index.
struct memory_forget_request {
  std::string workspace;
  int64_t id = 0;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, memory_forget_request& x) {
  return f(caf::meta::type_name("memory_forget_request"), x.workspace, x.id);
}

/// An index's figures: for /stats, /status and `nanobot memory stats`.
struct memory_figures {
  std::string workspace;
  int64_t chunks = 0;
  int64_t embedded = 0;    ///< chunks with a vector of the current model
  int64_t index_bytes = 0; ///< index.sqlite plus its WAL
  int64_t embed_calls = 0; ///< requests to the embeddings endpoint
  int64_t embed_failures = 0;
  int64_t cache_hits = 0;  ///< texts whose vector came from the cache
  int64_t searches = 0;
  int64_t search_p50_us = 0;
  int64_t search_p99_us = 0;
  int64_t added = 0;       ///< chunks added by the last reindex
  int64_t removed = 0;     ///< chunks removed by the last reindex
  std::string mode;        ///< "hybrid" or "full-text"
  std::string note;        ///< why full text only, or what went wrong
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, memory_figures& x) {
  return f(caf::meta::type_name("memory_figures"), x.workspace, x.chunks,
           x.embedded, x.index_bytes, x.embed_calls, x.embed_failures,
           x.cache_hits, x.searches, x.search_p50_us, x.search_p99_us,
           x.added, x.removed, x.mode, x.note);
}

/// The figures of one workspace's index (starts it if needed).
using memory_stats_atom = caf::atom_constant<caf::atom("memstats")>;
/// Re-reads the memory files now; answers the figures after it.
using memory_reindex_atom = caf::atom_constant<caf::atom("memreindex")>;
/// An index's own continuation: embed the next batch of chunks.
using memory_step_atom = caf::atom_constant<caf::atom("memstep")>;
/// The name the memory directory is registered under in the actor system.
using memory_atom = caf::atom_constant<caf::atom("memory")>;

/// What a memory index and the per-process directory in front of the
/// indexes both answer. Every request names its workspace.
using memory_actor = caf::typed_actor<
  caf::replies_to<memory_query>::with<memory_hits>,
  caf::replies_to<memory_save_request>::with<std::string>,
  caf::replies_to<memory_forget_request>::with<std::string>,
  caf::replies_to<memory_stats_atom, std::string>::with<memory_figures>,
  caf::replies_to<memory_reindex_atom, std::string>::with<memory_figures>>;

/// The directory: one index per workspace, started on first use; indexes
/// report their figures to it (for the stats gauges).
using memory_directory_actor
  = memory_actor::extend<caf::reacts_to<memory_figures>>;

/// One workspace's index; `memory_step_atom` is its own batch timer.
using memory_index_actor
  = memory_actor::extend<caf::reacts_to<memory_step_atom>>;

} // namespace nb

CAF_BEGIN_TYPE_ID_BLOCK(nb_memory, caf::id_block::nb::end)

  CAF_ADD_TYPE_ID(nb_memory, (nb::memory_query))
  CAF_ADD_TYPE_ID(nb_memory, (nb::memory_hit))
  CAF_ADD_TYPE_ID(nb_memory, (std::vector<nb::memory_hit>))
  CAF_ADD_TYPE_ID(nb_memory, (nb::memory_hits))
  CAF_ADD_TYPE_ID(nb_memory, (nb::memory_save_request))
  CAF_ADD_TYPE_ID(nb_memory, (nb::memory_forget_request))
  CAF_ADD_TYPE_ID(nb_memory, (nb::memory_figures))

CAF_END_TYPE_ID_BLOCK(nb_memory)

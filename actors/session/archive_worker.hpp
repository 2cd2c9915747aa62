// The worker that archives one range of a session's turns: it asks the
// model for a summary, falls back to the raw text when that fails, appends
// the entry to memory/history.jsonl and adds lasting facts to MEMORY.md.
// Detached (its file writes block) and linked to the session that spawned
// it, so it never outlives it (a shutdown must not wait for a model call).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include <caf/fwd.hpp>

#include "messages/interfaces.hpp"

namespace nb {

struct archive_job {
  provider_actor provider;
  std::string model;
  std::string provider_name; ///< the chat's preset provider ("" = by model)
  std::chrono::seconds timeout{300}; ///< the summary call, retries included
  std::string workspace;
  /// The agent's workspace actor: it writes history.jsonl and MEMORY.md
  /// (null: this worker writes them itself).
  workspace_actor files;
  std::string session_key;
  std::string formatted; ///< format_for_archive() of the range
  size_t count = 0;      ///< messages in the range
};

/// Answers one `get_atom` with (raw, entry): `raw` when the summary call
/// failed and the raw text was archived instead; `entry` is what went to
/// history.jsonl ("(nothing)": the model found nothing worth keeping, so
/// nothing was written). An error only when history.jsonl could not be
/// written. Quits after answering. A provider that goes down mid-call
/// counts as a failed call.
caf::behavior archive_worker(caf::event_based_actor* self, archive_job job);

} // namespace nb

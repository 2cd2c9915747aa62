// Semantic memory in a session: the automatic recall in BUILD (the
// memories that relate to the user's message go into the runtime block
// after the user's text, so the system prompt stays byte-identical and
// cacheable), and the memory figures and search that /memory, /stats and
// /status show. Internal to nb_session.
#pragma once

#include <functional>
#include <string>

#include "actors/session/session.hpp"

namespace nb {

/// BUILD: asks the agent's memory about the user's message (without
/// waiting for the answer). A missing memory service, an error or a slow
/// answer (3 s) just means no recall; the turn never fails because of it.
void start_recall(session_pointer self);

/// Runs `then` once the recall started by start_recall has its answer.
void after_recall(session_pointer self, std::function<void()> then);

/// Adds the recalled memories to `runtime_block` (before its closing tag).
void add_recall(session_pointer self, std::string& runtime_block);

/// Whether `cmd` shows memory figures or results (/memory, /stats).
bool wants_memory(const parsed_command& cmd);

/// Fetches what `cmd` shows of the memory and calls `then` with it as text
/// (an explanation when memory is unavailable).
void with_memory_text(session_pointer self, const parsed_command& cmd,
                      std::function<void(std::string)> then);

} // namespace nb

// Context governance: the repaired, budgeted copy of a transcript that is
// sent to the model before every call. The transcript itself is never touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/runner/model_message.hpp"

namespace nb {

/// What the governor budgets against.
struct governor_limits {
  int64_t context_window_tokens = 65536;
  int64_t max_output_tokens = 8192;
  size_t max_tool_result_chars = 16000; ///< counted in UTF-8 bytes
};

/// Tokens left for the input: window - max output - 1024 (a safety margin
/// for the tool definitions and estimate error); when that is <= 0 the
/// window is too small for the output limit, so half of it (at least 128).
int64_t input_budget(const governor_limits& limits);

/// A cheap, deterministic token estimate: for every element, the size in
/// bytes its compact JSON serialisation would roughly have (escapes counted
/// as one byte) divided by 4, plus 4 tokens of per-message overhead. Real
/// tokenisers give about 3-4 bytes per token for English and JSON, so this
/// errs slightly high, which the 1024-token margin absorbs. 0 for non-arrays.
int64_t estimate_tokens(const nlohmann::json& messages);

/// The same estimate for one message, without building an array around it.
int64_t estimate_message_tokens(const nlohmann::json& message);

/// The model-facing copy of `messages`. Never throws and never modifies its
/// input; anything that is not an array gives an empty array, elements that
/// are not objects with a string "role" are dropped. Steps, in order:
///  1. drop assistant placeholders (the "reply unavailable" text, no calls);
///  2. drop tool calls whose function name is missing, empty or not a string,
///     or whose id is missing, empty or already declared by an earlier call;
///     an assistant message left with neither content nor calls goes too;
///  3. drop tool results that do not answer a call of the assistant message
///     heading their contiguous group of tool messages, or answer one twice;
///  4. give every unanswered call a synthetic result at the end of its group;
///  5. truncate tool results over `max_tool_result_chars` (empty ones get a
///     "completed with no output" text, non-text ones their JSON text);
///  6. the non-system part starts at the first user message (if any); when
///     the estimate exceeds the budget, replace the tool results (>= 500
///     chars) of the current run - after the last user message - oldest
///     first by a note asking for a narrower retry, until the estimate is
///     <= 85 % of budget (the newest only while still over budget);
///  7. if still over budget, drop the oldest non-system messages, keeping
///     every system message and a tail that starts at a user message;
///  8. repeat 3 and 4.
nlohmann::json govern_messages(const nlohmann::json& messages,
                               const governor_limits& limits);

/// The same list as compact JSON text (what govern_messages(...).dump()
/// gives, invalid UTF-8 replaced), written without copying the input: the
/// request body's "messages". Never throws ("[]").
std::string govern_messages_text(const nlohmann::json& messages,
                                 const governor_limits& limits);

/// The same for made messages: each one left unchanged is copied from its
/// ready text and counted by its ready estimate, so a turn does not
/// serialise its history again. Never throws ("[]").
std::string govern_messages_text(
  const std::vector<shared_model_message>& messages,
  const governor_limits& limits);

} // namespace nb

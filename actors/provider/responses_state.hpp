// The Responses API conversation state, as the original keeps it
// (openai_responses/state.py): the exact input and output items of the
// last answer, encrypted reasoning included, replayed before only the
// messages added since, so a reasoning model goes on from its own
// reasoning (nothing is stored server side: store false). Pure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/provider/provider_registry.hpp"
#include "messages/model.hpp"

namespace nb {

/// The state's kind and version (RESPONSES_STATE_KIND / _VERSION).
inline constexpr const char* responses_state_kind = "openai_responses";
inline constexpr int responses_state_version = 1;

/// Whom a state belongs to, as the original names it:
/// "openai_compat:<provider>:<apiBase without a trailing slash>".
std::string responses_state_provider(const provider_choice& choice);

/// The request's input when `conversation` is a state of this `provider`
/// and `model`: its items, then its pending messages and the request's
/// (conversation.pending) as Responses items. False (and `input` left as
/// it is) when there is none to resume: the whole transcript goes.
/// `keep_reasoning`: as to_responses_input's (DeepSeek).
bool responses_resume_input(const conversation_state& conversation,
                            const std::string& provider,
                            const std::string& model, nlohmann::json& input,
                            bool keep_reasoning = false);

/// The state after a completed answer (the reply's finish reason stop or
/// tool_calls): the request's input items, then every output item; a new
/// compaction item in the output replaces everything before it. Its
/// "context_tokens" is the answer's total tokens. Record JSON text.
std::shared_ptr<const std::string>
responses_next_state(const std::string& provider, const std::string& model,
                     nlohmann::json input, const nlohmann::json& output,
                     const token_usage& usage);

/// After a Responses answer: `reply.conversation` holds its output items
/// (the wire's parse put them there); they become the next state, given
/// the request `body` sent, or none when the answer cannot be resumed
/// (not completed, cut short, refused).
void settle_responses_state(model_reply& reply, const std::string& provider,
                            const std::string& body);

/// A failed call (Responses or Chat Completions): transient failures (a
/// timeout, a 5xx, a cancel) keep the conversation as it was (stateful
/// false); any other drops it (stateful, no state), as the original
/// discards state after a non-transient error.
void settle_failed_responses_state(model_reply& reply, bool transient);

/// Server compaction's threshold for a context window (the original's
/// resolve_compact_threshold): 90% of it, and room for the answer; 0 when
/// the window is unknown.
int64_t responses_compact_threshold(int64_t context_window_tokens,
                                    int64_t max_output_tokens);

/// Whether a refused request names the compaction fields (400 / 404 /
/// 422 mentioning context_management, compact_threshold or
/// compaction_trigger): it is sent again without them.
bool responses_compaction_refused(int status, const std::string& detail);

} // namespace nb

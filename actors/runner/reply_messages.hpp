// What a model reply becomes in the transcript: the assistant message with
// its calls and reasoning, the calls that can run, and usage totals. Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/runner/model_message.hpp"
#include "messages/model.hpp"

namespace nb {

/// Adds `x` to a turn's totals; prompt tokens are the latest context size.
void add_usage(token_usage& into, const token_usage& x);

/// Adds `x` to `sum`, every figure summed.
void sum_usage(token_usage& sum, const token_usage& x);

/// The text of a turn's last assistant message with the turn's usage on it
/// ("usage": the requests' figures summed, the latest prompt size as
/// context_tokens, the number of requests) and the model that answered.
std::string stamped_with_usage(const model_message& assistant,
                               const token_usage& sum, int64_t context_tokens,
                               int32_t requests, const std::string& model);

/// Reasoning text, and Anthropic thinking blocks with their signatures
/// (replayed to the model on the next call).
void keep_reasoning(nlohmann::json& msg, const model_reply& reply);

/// The assistant message that asked for `calls`.
nlohmann::json assistant_with_calls(const model_reply& reply,
                                    const std::vector<tool_call>& calls);

/// Drops calls without a name (they cannot run and poison a transcript on
/// replay) and gives every remaining call a unique, non-empty id.
std::vector<tool_call> usable_calls(const model_reply& reply, int iteration);

/// "name(args...)" for the user's progress line.
std::string hint_for(const tool_call& c);

/// The progress line for a tool the provider runs itself: as hint_for, or
/// the name alone while it has no arguments yet (the original's line for
/// a hosted search that has not said its query).
std::string hosted_hint_for(const std::string& name,
                            const std::string& arguments_json);

} // namespace nb

// What a provider's settings add to a request beyond the wire format: how
// hard the model thinks (reasoningEffort, thinkingStyle), the user's
// extraBody and extraQuery. Pure functions over JSON.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace nb {

/// The body options one call carries (see wire_format::body).
struct body_options {
  std::string reasoning_effort; ///< "" = the provider's own default
  std::string thinking_style;   ///< provider_choice::thinking_style
  std::string extra_body;       ///< a JSON object as text, "" = none
  /// Responses: whose saved conversation the call may resume
  /// (responses_state_provider); "" = none is resumed.
  std::string conversation_provider{};
  /// Responses: server compaction above this many tokens (0 = not asked).
  int64_t compact_threshold = 0;
  /// Responses: a hosted tool added unless extraBody names the tools
  /// (provider_spec::responses_default_tool); "" = none.
  std::string default_hosted_tool{};
  /// Responses as the original speaks it to DeepSeek: an assistant's
  /// reasoning text goes back as a reasoning item, no encrypted reasoning
  /// or search sources are asked for, and an effort of "none" is sent.
  bool deepseek = false;
};

/// Chat Completions: `reasoning_effort` unless it is "none", the thinking
/// switch of `style` ("thinking_type", "enable_thinking",
/// "reasoning_split"), and no temperature while the model reasons. An
/// empty effort changes nothing (the endpoint's default stays).
void apply_openai_reasoning(nlohmann::json& body, const std::string& effort,
                            const std::string& style);

/// Messages API: extended thinking for `effort` on `model` — "adaptive",
/// a token budget (low 1024, medium 4096, high max(8192, max_tokens)), or
/// off for "none" on models that think by default; temperature 1 while
/// thinking, max_tokens raised above the budget.
void apply_anthropic_reasoning(nlohmann::json& body, const std::string& model,
                               const std::string& effort);

/// Merges the user's extraBody into `body` last: objects key by key, other
/// values replace ours, a "tools" list is appended to our tools.
void merge_extra_body(nlohmann::json& body, const std::string& extra_body);

/// `path` with `query` appended as percent-encoded parameters.
std::string with_query(std::string path,
                       const std::map<std::string, std::string>& query);

} // namespace nb

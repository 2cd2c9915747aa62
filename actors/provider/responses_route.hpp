// Which OpenAI API a call speaks (providers.openai.apiType: auto |
// chat_completions | responses) and the circuit breaker that sends `auto`
// back to Chat Completions when an endpoint keeps refusing the Responses
// API (the original's rules, openai_compat_provider.py). Pure.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "actors/provider/provider_registry.hpp"
#include "actors/provider/retry_policy.hpp"

namespace nb {

/// How a call may use the Responses API.
enum class responses_use {
  never,     ///< Chat Completions only
  preferred, ///< Responses first; Chat Completions when it is refused
  required,  ///< Responses only (apiType "responses"): errors are shown
};

/// Consecutive refusals that open the breaker, and how long it stays open
/// before one more Responses call is tried (the original's 3 and 300 s).
inline constexpr int responses_failure_threshold = 3;
inline constexpr std::chrono::seconds responses_probe_interval{300};

/// Whether a provider's Responses calls carry a hosted web search (a tool
/// of type "web_search" or "web_search_*"): the user's extraBody "tools"
/// when it has that key, else the provider's `default_tool` (DeepSeek's).
/// Such calls must go through the Responses API (the original's
/// _hosted_web_search_enabled).
bool responses_hosted_web_search(const std::string& extra_body,
                                 std::string_view default_tool = {});

/// A tool entry of OpenAI's hosted web search (type "web_search" or
/// "web_search_<version>").
bool responses_hosted_search_tool(const nlohmann::json& tool);

/// True for the direct OpenAI endpoint (an apiBase naming api.openai.com,
/// or none), not for OpenAI-compatible gateways.
bool is_direct_openai_base(std::string_view api_base);

/// The original's choice for provider `openai`: apiType "chat_completions"
/// never, "responses" (or a hosted web search in extraBody) always; "auto" prefers Responses on the direct
/// OpenAI base when reasoning is asked for (an effort other than "none")
/// or the model is gpt-5 / o1 / o3 / o4. A provider whose registry entry
/// lists the model in its responses_models (DeepSeek's v4 models; its
/// apiType is not read, as the original reads only OpenAI's): always
/// while its calls carry a hosted web search (DeepSeek's default), else
/// preferred. Every other provider and model: never.
responses_use responses_route(const provider_choice& choice,
                              const std::string& model,
                              const std::string& effort);

/// True when a Responses call failed the way an endpoint without the
/// Responses API fails (HTTP 400 / 404 / 422 naming the API, an unknown
/// or unsupported parameter): the only failures that count towards the
/// breaker and fall back to Chat Completions.
bool responses_refused(const attempt_failure& f);

/// The breaker's key: endpoint, model and effort.
std::string responses_breaker_key(const provider_choice& choice,
                                  const std::string& model,
                                  const std::string& effort);

} // namespace nb

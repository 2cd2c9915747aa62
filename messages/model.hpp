// Model calls: what the runner asks a provider and what comes back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>
#include <caf/typed_actor.hpp>
#include <caf/replies_to.hpp>

#include "messages/conversation.hpp"

namespace nb {

/// A function call the model asked for. `name` may be empty when the model
/// produced a malformed call; `arguments_json` is the raw text it sent.
struct tool_call {
  std::string id;
  std::string name;
  std::string arguments_json;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tool_call& x) {
  return f(caf::meta::type_name("tool_call"), x.id, x.name, x.arguments_json);
}

/// Token counts as the provider reported them (or estimated).
struct token_usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
  int64_t cached_tokens = 0;
  bool estimated = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, token_usage& x) {
  return f(caf::meta::type_name("token_usage"), x.prompt_tokens,
           x.completion_tokens, x.total_tokens, x.cached_tokens, x.estimated);
}

/// A piece of streamed output, sent while a streamed model call runs.
struct model_delta {
  std::string request_id;
  std::string content;
  bool reasoning = false; ///< true: reasoning text, never shown as the answer
  /// Not empty: a tool the provider runs itself (OpenAI's hosted web
  /// search) began, under this name; `content` holds its arguments as a
  /// JSON object. A progress hint for the user, never the answer.
  std::string hosted_tool{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_delta& x) {
  return f(caf::meta::type_name("model_delta"), x.request_id, x.content,
           x.reasoning, x.hosted_tool);
}

/// Notice that the provider is waiting before a retry.
struct model_retry_notice {
  std::string request_id;
  std::string text; ///< "Model request failed, retry in 2s (attempt 2)."
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_retry_notice& x) {
  return f(caf::meta::type_name("model_retry_notice"), x.request_id, x.text);
}

/// Takes stream deltas and retry notices (the runner of the turn).
using model_delta_sink = caf::typed_actor<caf::reacts_to<model_delta>,
                                          caf::reacts_to<model_retry_notice>>;

/// One chat-completion call. Messages and tools travel as JSON text in the
/// OpenAI chat-completions shape; the provider maps them to its own wire form.
struct model_request {
  std::string request_id;  ///< "{session_key}:{turn}:{iteration}", for logs
  std::string model;
  std::string messages_json; ///< JSON array of messages
  std::string tools_json;    ///< JSON array of tool definitions, "" = none
  int32_t max_tokens = 0;    ///< 0 = provider default
  double temperature = -1;   ///< < 0 = provider default
  bool stream = false;
  model_delta_sink stream_to; ///< deltas and retry notices go here
  /// A providers.<name> key for `model` (a preset's provider); "" or
  /// "auto" = chosen from the model name like agents.defaults.provider.
  std::string provider;
  std::string agent = "main"; ///< whose turn calls (the stats' label)
  /// reasoningEffort ("low", "high", "none", ...); "" = the provider's own
  /// default (nothing is sent).
  std::string reasoning_effort;
  /// A sustained-goal turn's request: no wall clock (the original passes
  /// llm_timeout_s 0); the stream's idle limit and the attempts' own
  /// limits still hold.
  bool no_wall_clock = false;
  /// The session's saved Responses conversation, with the messages added
  /// since as its pending ones: a Responses call for the state's own
  /// endpoint and model sends its items and then only those messages.
  conversation_state conversation{};
  /// The model's context window (agents.defaults.contextWindowTokens): a
  /// direct OpenAI Responses call asks for server compaction below it.
  int64_t context_window_tokens = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_request& x) {
  return f(caf::meta::type_name("model_request"), x.request_id, x.model,
           x.messages_json, x.tools_json, x.max_tokens, x.temperature, x.stream,
           x.stream_to, x.provider, x.agent, x.reasoning_effort,
           x.no_wall_clock, x.conversation, x.context_window_tokens);
}

/// The outcome of one call. Provider failures are values, not errors:
/// `finish_reason == "error"` and `error` explains it in words for the user.
struct model_reply {
  std::string content;
  std::string reasoning_content;
  std::vector<tool_call> tool_calls;
  std::string finish_reason; ///< stop, tool_calls, length, error, ...
  token_usage usage;
  std::string error;
  int32_t http_status = 0; ///< the last HTTP status seen, 0 = none
  int32_t attempts = 0;
  int64_t latency_us = 0;
  /// Anthropic thinking blocks (JSON array, signatures included) to replay
  /// on the assistant message as "thinking_blocks"; "" = none.
  std::string thinking_blocks_json;
  /// The fallback model that answered after the requested one failed;
  /// "" = the requested model answered (or everything failed).
  std::string fallback_model;
  /// The call went to a Responses endpoint: `conversation` is the state to
  /// go on from (its input and output items), or none when this answer
  /// cannot be resumed. False: the call kept no state (Chat Completions,
  /// Anthropic), whatever it was given stays as it was.
  bool stateful = false;
  conversation_state conversation{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_reply& x) {
  return f(caf::meta::type_name("model_reply"), x.content,
           x.reasoning_content, x.tool_calls, x.finish_reason, x.usage,
           x.error, x.http_status, x.attempts, x.latency_us,
           x.thinking_blocks_json, x.fallback_model, x.stateful,
           x.conversation);
}

/// Tells the provider its caller no longer wants the call with this
/// request id (the user sent /stop): a running HTTP call is cut and a
/// retry wait ends (no further attempts, no fallback), a call still queued
/// is dropped. The call's reply says "Model request cancelled.".
inline constexpr const char* cancelled_call_text = "Model request cancelled.";

struct model_cancel {
  std::string request_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model_cancel& x) {
  return f(caf::meta::type_name("model_cancel"), x.request_id);
}

} // namespace nb

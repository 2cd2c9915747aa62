// One turn's model loop: what the session hands the runner and gets back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "messages/chat.hpp"
#include "messages/model.hpp"

namespace nb {

/// Runs the model/tool loop for one turn.
struct run_turn {
  std::string session_key;
  std::string channel;
  std::string chat_id;
  std::string turn_id;
  std::string model;
  std::string messages_json; ///< system prompt, history and the user message
  int32_t max_iterations = 20;
  int32_t max_tokens = 0;
  double temperature = -1;
  std::string reasoning_effort; ///< "" = the provider's default
  bool stream = false;
  outbound_sink stream_to; ///< deltas and progress lines for the user
  /// From inbound metadata "_suppress_message_delivery": the message tool
  /// must not deliver directly in this turn.
  bool suppress_delivery = false;
  outbound_sink outbox; ///< the message tool's destination (null: none)
  /// Non-empty: the only tools this run may see and call (a subagent's).
  std::vector<std::string> allowed_tools;
  /// A failed tool call ends the run (stop reason "tool_error").
  bool fail_on_tool_error = false;
  std::string agent = "main"; ///< the agent whose turn this is
  /// How many send_to_agent hops led to this turn (0 = a user's message).
  int32_t agent_depth = 0;
  /// Agents send_to_agent may reach (empty: the tool is not offered).
  std::vector<std::string> can_message;
  std::string sender_id;    ///< who wrote the turn's message (the my tool)
  std::string model_preset; ///< the session's modelPresets name, "" = none
  /// A sustained-goal turn (a goal active, or started by /goal): its model
  /// requests have no wall clock, as the original's.
  bool sustained_goal = false;
  /// At the iteration limit, one no-tools request for a final answer;
  /// false when a goal continuation turn will carry on instead: the
  /// limit's fallback text ends the run without a model call.
  bool finalize_on_max_iterations = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_turn& x) {
  return f(caf::meta::type_name("run_turn"), x.session_key, x.channel,
           x.chat_id, x.turn_id, x.model, x.messages_json, x.max_iterations,
           x.max_tokens, x.temperature, x.reasoning_effort, x.stream,
           x.stream_to, x.suppress_delivery, x.outbox, x.allowed_tools,
           x.fail_on_tool_error, x.agent, x.agent_depth, x.can_message,
           x.sender_id, x.model_preset, x.sustained_goal,
           x.finalize_on_max_iterations);
}

/// How a run ended and what it added to the transcript.
struct turn_outcome {
  std::string final_content;
  /// Assistant and tool messages the run produced, as JSON object texts,
  /// in order; the session persists them at SAVE.
  std::vector<std::string> new_messages;
  /// completed, max_iterations, error, empty_final_response
  std::string stop_reason;
  token_usage usage;
  int32_t iterations = 0;
  int32_t tool_calls = 0;
  bool streamed = false; ///< the final text already went out as deltas
  /// The message tool already answered this turn's chat: the final reply
  /// need not be sent again.
  bool delivered_by_tool = false;
  /// A Responses call ran: the session file's provider_state becomes
  /// `conversation` (none: dropped). False: the file's state, if any, is
  /// carried as it is, the turn's messages added to its pending ones.
  bool conversation_set = false;
  conversation_state conversation{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, turn_outcome& x) {
  return f(caf::meta::type_name("turn_outcome"), x.final_content,
           x.new_messages, x.stop_reason, x.usage, x.iterations, x.tool_calls,
           x.streamed, x.delivered_by_tool, x.conversation_set,
           x.conversation);
}

} // namespace nb

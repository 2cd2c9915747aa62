// The runner: one turn's model loop. Calls the provider, runs the tool calls
// it asks for in batches, feeds the results back, and stops on a final answer
// (unless the session's goal is still active: goal_continue.cpp) or at the
// iteration limit with one no-tools finalisation request.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/common/meter.hpp"
#include "actors/common/request_deadlines.hpp"
#include "actors/runner/conversation_keeper.hpp"
#include "actors/runner/model_message.hpp"
#include "actors/runner/tool_batches.hpp"
#include "actors/runner/tool_offload.hpp"
#include "messages/errc.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct runner_state {
  runner_state() = default;
  static inline const char* name = "runner";

  provider_actor provider;
  tools_actor tools;
  session_actor session; ///< hands out mid-turn messages (null: none)
  subagents_actor subagents; ///< runs spawn calls (null: no spawn tool)
  /// tools.allow / tools.deny for the runner's own tools (runner_settings).
  std::vector<std::string> tools_allow, tools_deny;
  std::chrono::seconds model_timeout{1260};
  std::chrono::seconds tool_timeout{900};
  int64_t context_window_tokens = 65536; ///< for the context governor
  offload_settings offload; ///< where oversized tool results go
  /// The timeouts of its pending requests (timed_request).
  request_deadlines deadlines;

  run_turn request;
  caf::typed_response_promise<turn_outcome> promise;
  /// The working copy sent to the model: each message with its ready text,
  /// so each request body is assembled from text, not serialised again.
  std::vector<shared_model_message> messages;
  bool messages_given = false; ///< handed over at spawn (runner_settings)
  std::vector<tool_spec> specs;
  /// Handed over at spawn (runner_settings::tool_specs): no list_tools.
  std::shared_ptr<const std::vector<tool_spec>> given_specs;
  std::string tools_json;
  turn_outcome outcome;
  int iteration = 0;
  bool empty_retry_used = false;
  bool malformed_retry_used = false;
  bool streaming_segment = false; ///< deltas went out since the last call
  std::string model_provider; ///< providers.<name> for the model, "" = auto

  // Usage over the turn, put on its last assistant message at the end.
  token_usage usage_sum;
  int32_t model_calls = 0;
  std::string answered_by; ///< the model of the last reply (a fallback's)
  /// The last assistant message added and its place in outcome.new_messages.
  shared_model_message last_assistant;
  size_t last_assistant_at = 0;

  /// The provider's saved conversation (Responses item replay).
  conversation_keeper conversation;
  conversation_state given_conversation; ///< until the run starts

  // Mid-turn messages and /stop.
  bool injections_waiting = false; ///< the session has messages for us
  bool taking = false;             ///< asking the session for them
  int injection_cycles = 0;
  bool cancelled = false;
  /// The session's user message is not durable yet (hold_tools): tool
  /// calls wait for its user_saved_atom.
  bool user_unsaved = false;
  bool tools_waiting = false; ///< a reply's calls wait for that word
  /// A final answer was followed by the goal's continuation message.
  bool goal_continued = false;
  /// create_goal or update_goal went to the session during this run.
  bool goal_tool_used = false;
  /// The request id of the last model call sent: a /stop cancels it at the
  /// provider (the provider ignores an id whose call has ended).
  std::string model_call;

  // The batch being executed.
  std::vector<tool_call> calls;
  std::vector<tool_result> results;
  std::vector<tool_batch> batches; ///< partitioned once per model reply
  size_t batch_index = 0;
  size_t batch_remaining = 0;

  actor_meter meter;
};

using runner_pointer = runner_actor::stateful_pointer<runner_state>;

/// What a runner is given at spawn: whom it talks to and its limits.
struct runner_settings {
  provider_actor provider;
  tools_actor tools; ///< null: the turn has no tools
  stats_actor stats; ///< its meter reports here (null: nowhere)
  /// Bounds one provider request, retries included.
  std::chrono::seconds model_timeout{1260};
  std::chrono::seconds tool_timeout{900}; ///< bounds one tool call
  /// Sizes the input budget of every request (see context_governor.hpp).
  int64_t context_window_tokens = 65536;
  /// Where results longer than its max_chars are written.
  offload_settings offload;
  /// Asked for messages the user sent meanwhile, between model calls, when
  /// it said some are waiting (null: none are taken).
  session_actor session;
  /// The providers.<name> entry for the turn's model (a session's /model
  /// preset); "" = chosen from the model name.
  std::string model_provider;
  subagents_actor subagents; ///< offers the spawn tool (null: not offered)
  /// The tools front's list as the session keeps it between turns (its
  /// catalog): the turn does not ask the front. Null: it asks (list_tools).
  std::shared_ptr<const std::vector<tool_spec>> tool_specs;
  /// The turn's messages, handed over by the session that built them:
  /// run_turn's messages_json is then left empty. The replayed history's
  /// are the transcript's own (shared, made when each message was added),
  /// so no turn writes the history out as text again nor parses it back
  /// (on a long chat that was most of the kernel's work per turn).
  /// Not given: they come as run_turn's messages_json (subagents, tests).
  std::optional<std::vector<shared_model_message>> messages;
  /// The agent's tools.allow / tools.deny for the tools the runner offers
  /// itself (spawn, send_to_agent, create_goal, update_goal), as the tools
  /// front applies them to its own.
  std::vector<std::string> tools_allow, tools_deny;
  /// The session file's saved provider conversation, without the turn's
  /// own message (the last of `messages`), which the run adds as pending.
  conversation_state conversation;
  /// The turn's user message is still being appended to the session file
  /// (the model is asked meanwhile): no tool call runs until the session
  /// sends user_saved_atom. A crash before that replays the message from
  /// the inbox, and a tool that had run would run a second time. If the
  /// append fails, the session sends cancel_turn_atom instead.
  bool hold_tools = false;
};

/// Runs one turn and quits.
runner_actor::behavior_type runner_impl(runner_pointer self,
                                        runner_settings settings);

} // namespace nb

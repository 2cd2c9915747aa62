// One turn's own data: made when a message starts a turn (RESTORE) and
// dropped when the turn is DONE, so nothing of it is reset by hand and
// nothing of one turn reaches the next. What outlives a turn on purpose
// (the transcript, the archive mark, the model choice, the last usage for
// /status, the goal's epoch) stays in session_state.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/runner/model_message.hpp"
#include "actors/runner/run_end.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct running_turn {
  inbound_msg message;         ///< what this turn answers
  /// Served by the agent's workspace actor at BUILD. Kept with the turn,
  /// not the session: an idle chat holds no copy of it (with thousands of
  /// chats open, a few KB each).
  std::string system_prompt;
  /// The same prompt made, shared with the agent's other sessions whose
  /// prompt is the same text (null: made from system_prompt at RUN).
  shared_model_message system_made;
  bool user_persisted = false; ///< the user's message is durable in the file
  /// BUILD's append of the user's message is still out: the model is asked
  /// meanwhile; tools, the inbox settle and SAVE wait for it
  /// (session_user_save.cpp).
  bool user_saving = false;
  std::string user_save_error; ///< that append failed ("" = it did not)
  size_t user_at = 0; ///< the message's place in the transcript meanwhile
  /// What waits for the append's outcome (SAVE, the end of RUN).
  std::vector<std::function<void()>> after_user_saved;
  /// The CLI apps the message attaches or mentions, as runtime-context
  /// lines ("\n"-led each; "" = none), read at BUILD.
  std::string cli_app_lines;
  nlohmann::json user_content; ///< with images as data URLs (null: text)

  // The model loop (RUN) and what it produced.
  runner_actor runner; ///< the running model loop (null outside RUN)
  bool tools_asked = false; ///< RUN asked the tools front for its catalog
  std::vector<nlohmann::json> to_save; ///< persisted at SAVE
  /// The provider's saved conversation: read at BUILD for the runner, then
  /// the runner's state for SAVE (when conversation_set). Kept with the
  /// turn: an idle chat holds none (it may be large).
  conversation_state conversation;
  bool conversation_set = false;
  std::string reply;
  turn_stop stop_reason = turn_stop::none;
  answer_finish finish_reason = answer_finish::normal; ///< of the last reply
  bool streamed = false;          ///< the reply already went out as deltas
  bool delivered_by_tool = false; ///< the message tool answered this chat
  std::string failure;            ///< what went wrong, for the user and the log

  // /stop and /new while it runs.
  bool cancel_requested = false;
  outbound_sink stopped_by; ///< who asked for the stop (told apart)

  // Messages injected into it (session_busy.cpp, session_injected.cpp).
  /// Reply sinks of the injected messages, told the answer too.
  std::vector<outbound_sink> injected_sinks;
  /// Injected user messages already appended to the file (not yet in the
  /// transcript): SAVE rewrites the file in turn order.
  std::vector<nlohmann::json> injected_on_disk;
  /// Their inbox entries, settled at the turn's end if not before (when
  /// their early save failed, SAVE keeps them).
  std::vector<std::string> injected_inbox_ids;

  // Sustained goals (session_goal.cpp).
  bool goal_requested = false;  ///< started by /goal
  bool goal_permission = false; ///< create_goal and replace allowed now
  /// The runner was told to skip the no-tools summary at the iteration
  /// limit (a continuation turn was due to carry on).
  bool budget_unfinalized = false;
  /// The turn ended at its limit and a continuation carries on: its
  /// fallback text is neither kept nor sent, only the turn's end marker.
  bool quiet_end = false;

  // Semantic memory (session_recall.cpp).
  std::string recalled;               ///< the recalled lines ("" = none)
  bool recall_pending = false;        ///< the recall's answer is still out
  std::function<void()> after_recall; ///< BUILD goes on with this then
};

} // namespace nb

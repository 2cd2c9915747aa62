// The turn's side of a provider's saved conversation (the original's
// ProviderConversationStateController): which messages a Responses call
// must add after the state's items, when an answer's state replaces it,
// and what the session file keeps at the end. The provider decides whether
// a state fits its endpoint and model; this only keeps the bookkeeping.
#pragma once

#include <cstddef>
#include <vector>

#include "actors/runner/model_message.hpp"
#include "messages/model.hpp"

namespace nb {

class conversation_keeper {
public:
  /// `state`: the session's saved conversation (none: a first request
  /// sends everything); `boundary`: the first message it does not cover
  /// (the turn's own message).
  void start(conversation_state state, size_t boundary);

  /// A request's conversation: the state, with the messages after the
  /// boundary (not the state's own answer) and `extra_prompt` (a closing
  /// user prompt, or null) as pending. None while there is no state.
  conversation_state for_request(const std::vector<shared_model_message>& msgs,
                                 const char* extra_prompt) const;

  /// After an answer, given the messages the call was made with: a
  /// Responses answer's state replaces ours (none: ours is dropped, as
  /// the original drops it after an answer it cannot resume); the
  /// assistant message made from it next is already in its items. An
  /// answer that is no Responses one (Chat Completions) drops it too; a
  /// failure that may pass leaves it as it is.
  void observe(model_reply& reply, size_t message_count);

  /// The state the session file keeps: ours with the messages after the
  /// boundary pending. False when no Responses call ran this turn: the
  /// file's state is then carried as it is.
  bool finish(const std::vector<shared_model_message>& msgs,
              conversation_state& out) const;

private:
  std::vector<std::string>
  after_boundary(const std::vector<shared_model_message>& msgs) const;

  conversation_state state_;
  size_t boundary_ = 0;
  size_t answer_at_ = static_cast<size_t>(-1); ///< the state's own answer
  bool touched_ = false;
};

} // namespace nb

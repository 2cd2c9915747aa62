// A turn's bookkeeping of the provider's saved conversation (see the header).
#include "actors/runner/conversation_keeper.hpp"

namespace nb {

void conversation_keeper::start(conversation_state state, size_t boundary) {
  state_ = std::move(state);
  boundary_ = boundary;
}

std::vector<std::string> conversation_keeper::after_boundary(
  const std::vector<shared_model_message>& msgs) const {
  std::vector<std::string> out = state_.pending;
  for (auto i = boundary_; i < msgs.size(); ++i) {
    // The assistant message made from the state's own answer is one of its
    // output items already.
    if (i == answer_at_ && msgs[i]->fields().value("role", "") == "assistant")
      continue;
    out.push_back(msgs[i]->text());
  }
  return out;
}

conversation_state
conversation_keeper::for_request(const std::vector<shared_model_message>& msgs,
                                 const char* extra_prompt) const {
  if (!state_.record)
    return {};
  conversation_state out{state_.record, after_boundary(msgs)};
  if (extra_prompt)
    out.pending.push_back(
      nlohmann::json{{"role", "user"}, {"content", extra_prompt}}.dump());
  return out;
}

void conversation_keeper::observe(model_reply& reply, size_t message_count) {
  if (!reply.stateful) {
    // A failure that may pass (a timeout, a 5xx) keeps it; an answer that
    // came another way (Chat Completions, apiType auto after its breaker
    // opened, another provider) drops it, as the original's
    // observe_response: the next Responses call sends the whole transcript.
    if (reply.finish_reason == "error")
      return;
    touched_ = true;
    state_ = {};
    answer_at_ = static_cast<size_t>(-1);
    boundary_ = message_count;
    return;
  }
  touched_ = true;
  state_ = {std::move(reply.conversation.record), {}};
  reply.conversation = {};
  boundary_ = message_count;
  answer_at_ = message_count;
}

bool conversation_keeper::finish(const std::vector<shared_model_message>& msgs,
                                 conversation_state& out) const {
  if (!touched_)
    return false;
  out = {};
  if (state_.record)
    out = {state_.record, after_boundary(msgs)};
  return true;
}

} // namespace nb

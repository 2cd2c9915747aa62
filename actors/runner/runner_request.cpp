// The request a turn sends the model: a repaired, budgeted copy of the
// messages (the recorded ones stay as they are), the tools when offered,
// and an extra closing prompt when the turn must end.
#include "actors/runner/runner_steps.hpp"

#include <nlohmann/json.hpp>

#include "actors/runner/context_governor.hpp"

namespace nb::runner_steps {

using json = nlohmann::json;

model_request make_request(runner_pointer self, bool with_tools,
                           const char* extra_user_prompt) {
  auto& st = self->state;
  model_request rq;
  rq.request_id = st.request.turn_id + ":" + std::to_string(st.iteration);
  st.model_call = rq.request_id;
  rq.model = st.request.model;
  rq.provider = st.model_provider;
  rq.agent = st.request.agent;
  // The model sees a repaired, budgeted copy; st.messages stays as recorded.
  governor_limits limits;
  limits.context_window_tokens = st.context_window_tokens;
  limits.max_output_tokens = st.request.max_tokens > 0 ? st.request.max_tokens
                                                       : 8192;
  limits.max_tool_result_chars = st.offload.max_chars;
  rq.messages_json = govern_messages_text(st.messages, limits);
  if (extra_user_prompt) {
    auto& body = rq.messages_json; // "[...]": the prompt goes last
    body.pop_back();
    if (body.size() > 1)
      body += ',';
    body += json{{"role", "user"}, {"content", extra_user_prompt}}.dump();
    body += ']';
  }
  rq.conversation = st.conversation.for_request(st.messages, extra_user_prompt);
  rq.context_window_tokens = st.context_window_tokens;
  if (with_tools)
    rq.tools_json = st.tools_json;
  rq.max_tokens = st.request.max_tokens;
  rq.temperature = st.request.temperature;
  rq.reasoning_effort = st.request.reasoning_effort;
  rq.no_wall_clock = st.request.sustained_goal;
  rq.stream = st.request.stream;
  rq.stream_to = self;
  return rq;
}

} // namespace nb::runner_steps

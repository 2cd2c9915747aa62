// The evaluator's one model call, as pure functions: the request it sends
// and how a reply becomes a decision.
#pragma once

#include <string>

#include "messages/evaluation.hpp"
#include "messages/model.hpp"

namespace nb {

inline constexpr const char* evaluate_tool_name = "evaluate_notification";
inline constexpr int32_t evaluator_max_tokens = 4096;

/// The evaluate_notification tool definition (a JSON array of one tool).
std::string evaluate_tool_json();

/// The user part: the original task and the agent's answer side by side.
std::string evaluation_user_text(const std::string& task_context,
                                 const std::string& response);

/// One model call: system = `prompt`, temperature 0, max_tokens 4096, the
/// single tool, no streaming.
model_request make_evaluation_request(const eval_request& rq,
                                      const std::string& prompt,
                                      const std::string& model);

/// Turns the provider's reply into a verdict. The first tool call decides,
/// and only when the finish reason allows running tools; any other reply
/// (text only, an error, unreadable arguments) gives rq.default_notify.
eval_verdict decide(const model_reply& reply, bool default_notify);

} // namespace nb

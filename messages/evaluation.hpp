// The notification gate: asking whether a background result is worth a
// message to the user, and the answer.
#pragma once

#include <string>

#include <caf/meta/type_name.hpp>

namespace nb {

/// Asks the evaluator whether `response` should reach the user.
struct eval_request {
  std::string source;       ///< who asks: "heartbeat", "cron", ... (stats)
  std::string task_context; ///< the task the agent was given
  std::string response;     ///< what the agent produced
  /// The answer when the model gives no usable decision (heartbeat: false,
  /// so a broken gate stays silent).
  bool default_notify = false;
  std::string model; ///< "" = the evaluator's configured model
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_request& x) {
  return f(caf::meta::type_name("eval_request"), x.source, x.task_context,
           x.response, x.default_notify, x.model);
}

/// The gate's decision.
struct eval_verdict {
  bool should_notify = false;
  std::string reason;
  /// False when the decision is the caller's default (no tool call, a
  /// provider error, unreadable arguments); `reason` then says why.
  bool decided_by_model = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_verdict& x) {
  return f(caf::meta::type_name("eval_verdict"), x.should_notify, x.reason,
           x.decided_by_model);
}

} // namespace nb

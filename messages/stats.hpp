// Figures every actor reports to the stats actor for /stats and /metrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "messages/model.hpp"
#include "messages/turn.hpp"

namespace nb {

/// Counters one actor accumulated since its last report.
struct actor_sample {
  std::string kind;       ///< "session", "router", "provider", ...
  int32_t spawned = 0;    ///< 1 in an actor's first report
  int32_t quit = 0;       ///< 1 in an actor's last report
  int64_t handled = 0;    ///< messages handled since the last report
  int64_t errors = 0;     ///< handler failures since the last report
  int64_t mailbox_high = 0;
  /// Handling-time histogram: bucket i counts times below 2^i microseconds.
  std::vector<int64_t> latency_hist;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, actor_sample& x) {
  return f(caf::meta::type_name("actor_sample"), x.kind, x.spawned, x.quit,
           x.handled, x.errors, x.mailbox_high, x.latency_hist);
}

/// A finished turn: its outcome and the time spent in each state.
struct turn_sample {
  std::string outcome; ///< completed, command, error, ...
  std::vector<state_trace> trace;
  int64_t total_us = 0;
  std::string agent = "main"; ///< the agent whose session ran it
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, turn_sample& x) {
  return f(caf::meta::type_name("turn_sample"), x.outcome, x.trace,
           x.total_us, x.agent);
}

/// A finished provider call.
struct provider_sample {
  std::string provider;
  std::string model;
  bool ok = false;
  int32_t attempts = 0;
  int64_t latency_us = 0;
  token_usage usage;
  std::string agent = "main"; ///< whose turn made the call
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, provider_sample& x) {
  return f(caf::meta::type_name("provider_sample"), x.provider, x.model, x.ok,
           x.attempts, x.latency_us, x.usage, x.agent);
}

/// A finished tool call.
struct tool_sample {
  std::string name;
  bool is_error = false;
  int64_t duration_us = 0;
  std::string agent = "main"; ///< whose tools ran it
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tool_sample& x) {
  return f(caf::meta::type_name("tool_sample"), x.name, x.is_error,
           x.duration_us, x.agent);
}

/// The current value of a level, e.g. "sessions_live" or "provider_queue".
struct gauge_sample {
  std::string name;
  int64_t value = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gauge_sample& x) {
  return f(caf::meta::type_name("gauge_sample"), x.name, x.value);
}

} // namespace nb

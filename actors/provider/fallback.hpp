// Fallback models (agents.defaults.fallbackModels): which models a request
// may try, in order, which failures move on to the next one, and the
// circuit breaker that skips a primary that keeps failing. Pure.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "actors/provider/provider_registry.hpp"
#include "actors/provider/retry_policy.hpp"
#include "config/settings.hpp"
#include "messages/model.hpp"

namespace nb {

/// One model a request may be answered by.
struct candidate {
  std::string label;       ///< as configured: "gpt-4o", or a preset name
  provider_choice choice;  ///< choice.model is the name sent on the wire
  int32_t max_tokens = 0;  ///< 0 = the request's
  double temperature = -1; ///< < 0 = the request's
  std::string reasoning_effort; ///< "" = the request's
};

/// The primary (the request's model and provider, or agents.defaults)
/// followed by agents.defaults.fallbackModels, each resolved to its
/// provider; a fallback equal to the primary is left out. Unset values of
/// inline fallbacks come from the request.
std::vector<candidate> plan_candidates(const settings& cfg,
                                       const model_request& req,
                                       const env_reader& env = process_env);

/// True when a call that failed like `f` may be retried on the next model:
/// quota, authentication (401/403), 408/409/429/5xx, timeouts, connection
/// and TLS failures, overloaded / rate-limit texts, empty answers. False
/// for invalid requests (400/404/422), content filters and cancellation.
bool fails_over(const attempt_failure& f);

/// Skips a primary model after `threshold` consecutive failures for
/// `cooldown`; one success closes it again.
class circuit_breaker {
public:
  using clock = std::chrono::steady_clock;

  circuit_breaker(int threshold, std::chrono::milliseconds cooldown);

  /// True while `key` is skipped.
  bool open(const std::string& key, clock::time_point now) const;

  /// Records the outcome of a call that tried `key` first.
  void record(const std::string& key, bool failed, clock::time_point now);

private:
  struct entry {
    int failures = 0;
    clock::time_point until{};
  };
  int threshold_;
  std::chrono::milliseconds cooldown_;
  std::map<std::string, entry> entries_;
};

} // namespace nb

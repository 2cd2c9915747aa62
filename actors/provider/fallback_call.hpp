// One model call that fails over to the next candidate model: blocking,
// for a provider worker's thread. Keeps one client per endpoint.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/provider/fallback.hpp"
#include "actors/provider/model_client.hpp"

namespace nb {

/// The clients of one worker, by endpoint (keep-alive connections are
/// reused across calls and models).
class client_pool {
public:
  client_pool(client_options opts,
              std::shared_ptr<const std::atomic<bool>> cancel);

  model_client& get(const provider_choice& choice);

private:
  client_options opts_;
  std::shared_ptr<const std::atomic<bool>> cancel_;
  std::map<std::string, std::unique_ptr<model_client>> clients_;
};

/// What a call with fallbacks ended with.
struct fallback_outcome {
  model_reply reply; ///< reply.fallback_model names a fallback that answered
  /// The first candidate tried failed in a way that fails over (for the
  /// circuit breaker).
  bool first_failed = false;
};

/// Tries `plan[start]`, then the following candidates while the failure
/// fails over (fails_over()) and no text reached the user. Each candidate
/// runs its own retries first. The user hears, through cb.on_retry_wait,
/// which model failed and which fallback takes over.
fallback_outcome call_with_fallbacks(client_pool& pool,
                                     const std::vector<candidate>& plan,
                                     size_t start, const model_request& req,
                                     const callbacks& cb);

} // namespace nb

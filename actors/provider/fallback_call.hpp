// One model call that fails over to the next candidate model: blocking,
// for a provider worker's thread. Keeps one client per endpoint.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

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

/// How the Responses API fared in one call, for the breaker the provider
/// front keeps (keys from responses_breaker_key()).
struct responses_report {
  std::vector<std::string> answered; ///< Responses calls that succeeded
  std::vector<std::string> refused;  ///< fell back to Chat Completions
  /// Endpoints (compaction_key()) that refused server compaction.
  std::vector<std::string> compaction_refused;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, responses_report& x) {
  return f(caf::meta::type_name("responses_report"), x.answered, x.refused,
           x.compaction_refused);
}

/// Whose server compaction a refusal turns off: the configured provider
/// and its endpoint (the original's provider instance), every model there.
std::string compaction_key(const provider_choice& choice);

/// What a call with fallbacks ended with.
struct fallback_outcome {
  model_reply reply; ///< reply.fallback_model names a fallback that answered
  /// The first candidate tried failed in a way that fails over (for the
  /// circuit breaker).
  bool first_failed = false;
  responses_report responses;
};

/// The Responses breaker key of candidate `c` for `req` (its model and
/// effective reasoning effort), "" when `c` never uses the Responses API
/// or only it (apiType "responses": no breaker).
std::string responses_key_for(const candidate& c, const model_request& req);

/// Tries `plan[start]`, then the following candidates while the failure
/// fails over (fails_over()) and no text reached the user. Each candidate
/// runs its own retries first. The user hears, through cb.on_retry_wait,
/// which model failed and which fallback takes over. A candidate that
/// prefers the Responses API (responses_route()) speaks it unless its key is
/// in `responses_open`, and falls back to Chat Completions in the same call
/// when the endpoint refuses it (responses_refused()). Endpoints in
/// `compaction_off` are asked for no server compaction.
fallback_outcome
call_with_fallbacks(client_pool& pool, const std::vector<candidate>& plan,
                    size_t start, model_request req, const callbacks& cb,
                    const std::vector<std::string>& responses_open = {},
                    const std::vector<std::string>& compaction_off = {});

} // namespace nb

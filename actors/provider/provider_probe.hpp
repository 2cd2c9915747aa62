// Two blocking checks of a provider before it is saved (the WebUI's setup):
// the models its /models lists, and one tiny chat request. Call them from a
// thread that may block, never from an actor.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "actors/provider/model_client.hpp"
#include "actors/provider/provider_registry.hpp"

namespace nb {

struct model_listing {
  std::vector<std::string> models; ///< ids, sorted
  std::string error; ///< "" = listed; else as the provider said it
};

/// GET <apiBase>/models with the provider's authentication headers.
model_listing list_models(const provider_choice& choice,
                          const client_options& opts);

struct probe_outcome {
  bool ok = false;
  std::string error;  ///< the provider's own words ("HTTP 401: ...")
  std::string answer; ///< the model's reply, cut short
  int64_t latency_ms = 0;
};

/// One short, non-streamed chat request, without retries.
probe_outcome probe_model(const provider_choice& choice, client_options opts);

/// The options for a probe: short timeouts, no retries.
client_options probe_options();

} // namespace nb

// A provider worker: a detached actor that runs one blocking model call at
// a time (with fallbacks and the Responses / Chat Completions choice) for
// the provider front (provider.cpp).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/provider/fallback_call.hpp"
#include "actors/provider/model_client.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// A worker takes the request, the index of the first candidate to try
/// (1 = the primary's breaker is open), the Responses breaker keys that
/// are open and the endpoints that refused server compaction; it answers
/// with the reply, whether that first candidate failed over, and how the
/// Responses API fared.
using provider_worker_actor = caf::typed_actor<
  caf::replies_to<model_request, int32_t, std::vector<std::string>,
                  std::vector<std::string>>::with<model_reply, bool,
                                                  responses_report>>;

/// Spawns a detached worker with its own copy of the settings; `stop`
/// cancels its running call.
provider_worker_actor spawn_provider_worker(
  caf::local_actor* parent, settings cfg, client_options opts,
  std::shared_ptr<const std::atomic<bool>> stop, stats_actor stats);

} // namespace nb

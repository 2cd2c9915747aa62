// The provider actor: a front that never blocks, a FIFO queue, and a
// bounded pool of detached workers that make the blocking HTTP calls.
#pragma once

#include <caf/fwd.hpp>

#include "actors/provider/model_client.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// Spawns the provider for `cfg`: choose_provider() picks the endpoint of
/// each request's model (the request's model and provider, else
/// agents.defaults), agents.defaults.fallbackModels are tried in order when
/// it fails in a way another model may not (fallback.hpp), and a primary
/// that keeps failing is skipped for a while. gateway.provider_workers
/// bounds the concurrent calls (more requests wait in FIFO order), timeouts
/// come from cfg.timeouts. Each model_request is answered with a
/// model_reply (failures too: finish_reason "error"); while it runs,
/// deltas, retry and fallback notices go to request.stream_to. When no
/// model is usable every request gets the primary's problem as its error
/// at once. Reports actor samples (kinds "provider" and
/// "provider_worker"), a provider_sample per call and the gauges
/// "provider_queue" / "provider_inflight" to `stats` (may be null).
/// Stop it with an exit message; its workers stop with it.
provider_actor spawn_provider(caf::actor_system& sys, const settings& cfg,
                              stats_actor stats);

/// The same with explicit client options (tests: short delays/timeouts).
provider_actor spawn_provider(caf::actor_system& sys, const settings& cfg,
                              stats_actor stats, client_options options);

} // namespace nb

// The provider actor: a front that never blocks, a FIFO queue, and a
// bounded pool of detached workers that make the blocking HTTP calls.
#pragma once

#include <caf/fwd.hpp>

#include "actors/provider/openai_client.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// Spawns the provider for `cfg`: choose_provider(cfg) picks the endpoint,
/// gateway.provider_workers bounds the concurrent calls (more requests wait
/// in FIFO order), timeouts come from cfg.timeouts. Each model_request is
/// answered with a model_reply (failures too: finish_reason "error"); while
/// it runs, deltas and retry notices go to request.stream_to. When the
/// configuration is unusable every request gets the choice's problem as its
/// error at once. Reports actor samples (kinds "provider" and
/// "provider_worker"), a provider_sample per call and the gauges
/// "provider_queue" / "provider_inflight" to `stats` (may be null).
/// Stop it with an exit message; its workers stop with it.
provider_actor spawn_provider(caf::actor_system& sys, const settings& cfg,
                              stats_actor stats);

/// The same with explicit client options (tests: short delays/timeouts).
provider_actor spawn_provider(caf::actor_system& sys, const settings& cfg,
                              stats_actor stats, client_options options);

} // namespace nb
